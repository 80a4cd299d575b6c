import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { Agent, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCallbackServer } from './support/callback-server.js';
import { localTls } from './support/certificates.js';
import { launchChromium } from './support/chromium.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { postJson } from './support/json-post.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { freePort } from './support/ports.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { startOidcProvider, UPSTREAM_SECRET } from './support/oidc-provider.js';

/**
 * Login through an upstream OpenID Connect provider (npm oidc-provider, a certified implementation, running in the
 * test on its own port) and through the same provider as a generic OAuth 2.0 one: Chromium goes from
 * Latchkey's /authorize to the provider's login and consent pages and back through /login/callback, and the
 * application ends with Latchkey tokens for the federated user.
 */
describe('upstream OpenID Connect and OAuth 2.0 connections', () => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  let browser: Browser;
  let app: Awaited<ReturnType<typeof startCallbackServer>>;
  let upstream: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    // Over HTTPS: the provider accepts only https redirect URIs for a front-channel client.
    const tls = localTls();
    setGlobalDispatcher(new Agent({ connect: { ca: tls.cert } }));
    // On 127.0.0.1: the provider refuses front-channel redirect URIs on localhost.
    server = await startTestServer({ dialect: 'sqlite', listen: true, https: tls, publicHost: '127.0.0.1' });
    app = await startCallbackServer();
    fx = await provisionLogin(server, { callbackBase: app.origin });
    api = managementApi(server, 'socket');
    upstream = await startOidcProvider(await freePort(), server.url);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await upstream?.close();
    await app?.close();
    await server?.close();
  });

  async function connection(name: string, strategy: 'oidc' | 'oauth2', options: Record<string, unknown>) {
    const created = await api('POST', '/connections', { name, strategy, enabled_clients: [fx.web.clientId, fx.spa.clientId], options });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }

  const authorizeUrl = (connectionName: string, extra: Record<string, string> = {}) =>
    `${server.url}/authorize?${new URLSearchParams({ client_id: fx.web.clientId, response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid profile email', state: 'app-state', connection: connectionName, ...extra })}`;

  /** Starts a login at Latchkey and answers the request Latchkey sent the browser with to the provider. */
  async function startUpstream(page: Page, url: string): Promise<URL> {
    const sent = page.waitForRequest((request) => request.url().startsWith(`${upstream.url}/auth`));
    await page.goto(url);
    return new URL((await sent).url());
  }

  /** The provider's login and consent pages (its development interactions: any login name and password). */
  async function signInUpstream(page: Page, login: string) {
    await page.waitForSelector('input[name="login"]');
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'anything');
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    // The consent page, unless the provider answered at once.
    if (page.url().startsWith(upstream.url)) await page.click('button[type="submit"]');
    await page.waitForURL(`${app.origin}/callback?**`, { waitUntil: 'commit' });
    return new URL(page.url());
  }

  async function exchange(code: string) {
    const answer = await postJson(server, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
      code,
      redirect_uri: fx.web.callback,
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.json as { id_token: string; access_token: string };
  }

  it('refuses an upstream connection whose options cannot work', async () => {
    const bad = await api('POST', '/connections', { name: 'broken', strategy: 'oidc', options: { client_id: 'x', scope: 'profile' } });
    expect(bad.status).toBe(400);
    expect(String(bad.body.message)).toContain('discovery_url');
    expect(String(bad.body.message)).toContain('openid');
    const oauth2 = await api('POST', '/connections', { name: 'broken2', strategy: 'oauth2', options: { authorizationURL: 'ftp://x' } });
    expect(oauth2.status).toBe(400);
  });

  it('back channel: the code flow with PKCE ends with Latchkey tokens for the federated user, created once and updated after', async () => {
    await connection('upstream-oidc', 'oidc', { discovery_url: `${upstream.url}/.well-known/openid-configuration`, client_id: 'latchkey', client_secret: UPSTREAM_SECRET });
    const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    const upstreamRequest = await startUpstream(page, authorizeUrl('upstream-oidc'));
    expect(upstreamRequest.searchParams.get('client_id')).toBe('latchkey');
    expect(upstreamRequest.searchParams.get('code_challenge_method')).toBe('S256');
    expect(upstreamRequest.searchParams.get('redirect_uri')).toBe(`${server.url}/login/callback`);
    const answer = await signInUpstream(page, 'alice');
    expect(answer.searchParams.get('state')).toBe('app-state');
    const tokens = await exchange(answer.searchParams.get('code') ?? '');
    const claims = decodeJwt(tokens.id_token);
    expect(claims).toMatchObject({ sub: 'oidc|upstream-oidc|alice', email: 'alice@upstream.example', email_verified: true, name: 'Upstream alice' });

    const user = await api('GET', `/users/${encodeURIComponent('oidc|upstream-oidc|alice')}`);
    expect(user.body).toMatchObject({ logins_count: 1, identities: [{ provider: 'oidc', connection: 'upstream-oidc', user_id: 'upstream-oidc|alice', isSocial: false }] });

    // The SSO session now answers without the provider; a new login (prompt=login) goes there again.
    await page.goto(authorizeUrl('upstream-oidc', { state: 'again' }));
    await page.waitForURL(`${app.origin}/callback?**`);
    expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
    await page.goto(authorizeUrl('upstream-oidc', { prompt: 'login' }));
    await signInUpstream(page, 'alice');
    expect((await api('GET', `/users/${encodeURIComponent('oidc|upstream-oidc|alice')}`)).body).toMatchObject({ logins_count: 2 });
    await page.context().close();
  });

  it('an upstream user with the e-mail of an existing user is not merged into it', async () => {
    const existing = await api('POST', '/users', { connection: fx.connection, email: 'bob@upstream.example', password: fx.user.password });
    expect(existing.status).toBe(201);
    const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    await page.goto(authorizeUrl('upstream-oidc'));
    const answer = await signInUpstream(page, 'bob');
    const { id_token: idToken } = await exchange(answer.searchParams.get('code') ?? '');
    expect(decodeJwt(idToken).sub).toBe('oidc|upstream-oidc|bob');
    expect(decodeJwt(idToken).sub).not.toBe(existing.body.user_id);
    expect((await api('GET', `/users/${String(existing.body.user_id)}`)).body).toMatchObject({ identities: [{ provider: 'auth0' }] });
    await page.context().close();
  });

  it('refusals go back to the application as access_denied: a provider error, a replayed code, a missing transaction', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const state = (await startUpstream(page, authorizeUrl('upstream-oidc', { state: 'refused' }))).searchParams.get('state') ?? '';
    await page.goto(`${server.url}/login/callback?state=${state}&error=access_denied&error_description=${encodeURIComponent('The user said no')}`);
    await page.waitForURL(`${app.origin}/callback?**`);
    const refused = new URL(page.url()).searchParams;
    expect(Object.fromEntries(refused)).toMatchObject({ error: 'access_denied', state: 'refused' });
    expect(refused.get('error_description')).toContain('The user said no');

    const forgedState = (await startUpstream(page, authorizeUrl('upstream-oidc', { state: 'forged', prompt: 'login' }))).searchParams.get('state') ?? '';
    await page.goto(`${server.url}/login/callback?state=${forgedState}&code=not-a-code-the-provider-gave`);
    await page.waitForURL(`${app.origin}/callback?**`);
    expect(new URL(page.url()).searchParams.get('error')).toBe('access_denied');

    // Another browser (no transaction cookie) cannot complete someone's login.
    const stranger = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    const response = await stranger.goto(`${server.url}/login/callback?state=${forgedState}&code=x`);
    expect(response?.status()).toBe(400);
    await stranger.context().close();
    await context.close();
  });

  it('front channel: an ID token by form post, re-posted from our origin to carry the transaction cookie', async () => {
    await connection('upstream-front', 'oidc', { discovery_url: `${upstream.url}/.well-known/openid-configuration`, client_id: 'latchkey-front', type: 'front_channel' });
    const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    expect((await startUpstream(page, authorizeUrl('upstream-front'))).searchParams.get('response_mode')).toBe('form_post');
    const answer = await signInUpstream(page, 'carol');
    const { id_token: idToken } = await exchange(answer.searchParams.get('code') ?? '');
    expect(decodeJwt(idToken)).toMatchObject({ sub: 'oidc|upstream-front|carol', email: 'carol@upstream.example' });
    await page.context().close();
  });

  it('a generic OAuth 2.0 connection reads the profile URL with a mapping', async () => {
    await connection('upstream-oauth2', 'oauth2', {
      authorizationURL: `${upstream.url}/auth`,
      tokenURL: `${upstream.url}/token`,
      profileURL: `${upstream.url}/me`,
      client_id: 'latchkey',
      client_secret: UPSTREAM_SECRET,
      scope: 'openid email profile',
      mapping: { user_id: 'sub', name: 'nickname' },
    });
    const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    await page.goto(authorizeUrl('upstream-oauth2'));
    const answer = await signInUpstream(page, 'dave');
    const { id_token: idToken } = await exchange(answer.searchParams.get('code') ?? '');
    expect(decodeJwt(idToken)).toMatchObject({ sub: 'oauth2|upstream-oauth2|dave', email: 'dave@upstream.example', name: 'dave' });
    await page.context().close();
  });

  it('without credentials of its own a connection counts as development keys: prompt=none answers login_required', async () => {
    await connection('upstream-dev', 'oidc', { discovery_url: `${upstream.url}/.well-known/openid-configuration` });
    const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    await page.goto(authorizeUrl('upstream-dev', { prompt: 'none', state: 'silent' }));
    await page.waitForURL(`${app.origin}/callback?**`);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({ error: 'login_required', state: 'silent' });
    await page.goto(authorizeUrl('upstream-dev', { state: 'interactive' }));
    await page.waitForURL(`${app.origin}/callback?**`);
    expect(new URL(page.url()).searchParams.get('error')).toBe('invalid_request');
    await page.context().close();
  });
});
