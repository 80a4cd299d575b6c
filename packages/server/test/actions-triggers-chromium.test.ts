import type { ManagementClient } from 'auth0';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { actionBinder, type ActionBinder } from './support/action-bindings.js';
import * as examples from './support/action-examples.js';
import type { ActionSource } from './support/action-examples.js';
import { startCallbackServer } from './support/callback-server.js';
import { launchChromium } from './support/chromium.js';
import { until } from './support/eventually.js';
import { startLogReceiver, type LogReceiver } from './support/log-receiver.js';
import { provisionLogin, USER_PASSWORD, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { startServerForSdk, type SdkServer } from './support/official-sdk.js';
import { DIALECTS } from './support/services.js';

const ROLES_CLAIM = 'https://my-app.example.com/roles';
const postLogin = (name: string, code: string): ActionSource => ({ name, trigger: 'post-login', code });

/** One Chromium for the file; each test has contexts of its own. */
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => browser?.close());

/**
 * The browser side of the Actions triggers, in headless Chromium against a server on HTTPS, on both dialects:
 * the hosted login page's authorization code flow runs post-login after the login form (and after the consent
 * screen), its claims reach the tokens the code is exchanged for, a denial or a failed action goes back to the
 * application's redirect URI, and the hosted signup page shows a pre-user-registration denial's message. Actions
 * are created, deployed and bound only through the official Management SDK.
 */
describe.each(DIALECTS)('Actions triggers in the browser (%s)', (dialect) => {
  let sdk: SdkServer;
  let management: ManagementClient;
  let api: ManagementApi;
  let binder: ActionBinder;
  let fx: LoginFixture;
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;
  let receiver: LogReceiver;
  let verify: (jwt: unknown, audience: string) => Promise<JWTPayload>;

  beforeAll(async () => {
    // Actions reach the local receiver on loopback.
    sdk = await startServerForSdk({ dialect, env: { LATCHKEY_ACTIONS_EGRESS: 'public,loopback' } });
    receiver = await startLogReceiver();
    management = sdk.management;
    api = managementApi(sdk.server);
    binder = actionBinder(management);
    callback = await startCallbackServer();
    fx = await provisionLogin(sdk.server, { callbackBase: callback.origin });
    const role = String((await api('POST', '/roles', { name: 'editor' })).body.id);
    expect((await api('POST', `/users/${encodeURIComponent(fx.user.userId)}/roles`, { roles: [role] })).status).toBe(204);
    const jwks = createRemoteJWKSet(new URL(`${sdk.server.url}/.well-known/jwks.json`));
    verify = async (jwt, audience) => (await jwtVerify(String(jwt), jwks, { issuer: `${sdk.server.url}/`, audience })).payload;
  }, 60_000);
  afterEach(async () => binder?.unbindAll());
  afterAll(async () => {
    await receiver?.close();
    await callback?.close();
    await sdk?.close();
  });

  /** A new browser at `/authorize` (code flow, `state=app-state`) for `clientId`. */
  async function open(clientId: string, params: Record<string, string> = {}): Promise<{ page: Page; close(): Promise<void> }> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const query = new URLSearchParams({ client_id: clientId, redirect_uri: fx.web.callback, response_type: 'code', scope: 'openid', state: 'app-state', ...params });
    await page.goto(`${sdk.server.url}/authorize?${query.toString()}`);
    return { page, close: () => context.close() };
  }

  async function logIn(page: Page, email = fx.user.email) {
    await page.getByLabel('E-mail address', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(USER_PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
  }

  /** Where the browser landed at the application: the callback's query. */
  async function answerAtCallback(page: Page): Promise<URLSearchParams> {
    await page.waitForURL(`${callback.origin}/**`);
    const url = new URL(page.url());
    expect(url.pathname).toBe('/callback');
    return url.searchParams;
  }

  async function exchange(code: string | null, client: { clientId: string; clientSecret: string }) {
    const response = await fetch(`${sdk.server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code ?? '', redirect_uri: fx.web.callback, client_id: client.clientId, client_secret: client.clientSecret }),
    });
    const tokens = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(tokens)).toBe(200);
    return tokens;
  }

  async function application(name: string, extra: Record<string, unknown> = {}) {
    const created = await api('POST', '/clients', { name, app_type: 'regular_web', callbacks: [fx.web.callback], grant_types: ['authorization_code'], ...extra });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const clientId = String(created.body.client_id);
    const [connection] = (await api('GET', `/connections?name=${encodeURIComponent(fx.connection)}`)).body as unknown as { id: string; enabled_clients: string[] }[];
    expect((await api('PATCH', `/connections/${String(connection?.id)}`, { enabled_clients: [...(connection?.enabled_clients ?? []), clientId] })).status).toBe(200);
    return { clientId, clientSecret: String(created.body.client_secret) };
  }

  it('the hosted login page runs post-login: its claims are in the tokens the code is exchanged for, its metadata saved', async () => {
    await binder.bind('post-login', [postLogin('Add roles to tokens', examples.ADD_ROLES_TO_TOKENS), postLogin('Set app metadata', examples.SET_APP_METADATA_ONCE)]);
    const { page, close } = await open(fx.web.clientId, { audience: fx.api.identifier });
    await logIn(page);
    const answer = await answerAtCallback(page);
    expect(answer.get('state')).toBe('app-state');
    const tokens = await exchange(answer.get('code'), fx.web);
    expect((await verify(tokens.id_token, fx.web.clientId))[ROLES_CLAIM]).toEqual(['editor']);
    expect((await verify(tokens.access_token, fx.api.identifier))[ROLES_CLAIM]).toEqual(['editor']);
    expect((await management.users.get(fx.user.userId)).app_metadata).toMatchObject({ didAnExpensiveTask: true });

    // The SSO session answers the next request without the form (silently too): the actions run again.
    for (const prompt of [{}, { prompt: 'none' }] as Record<string, string>[]) {
      const query = new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', scope: 'openid', state: 'again', audience: fx.api.identifier, ...prompt });
      await page.goto(`${sdk.server.url}/authorize?${query.toString()}`);
      const again = await answerAtCallback(page);
      expect(again.get('state')).toBe('again');
      expect((await verify((await exchange(again.get('code'), fx.web)).access_token, fx.api.identifier))[ROLES_CLAIM]).toEqual(['editor']);
    }
    await close();
  });

  it('runs post-login after the consent screen of a third-party application, and its claims survive it', async () => {
    const partner = await application(`Partner ${dialect}`, { is_first_party: false });
    await binder.bind('post-login', [postLogin('Add roles to tokens', examples.ADD_ROLES_TO_TOKENS)]);
    const { page, close } = await open(partner.clientId, { audience: fx.api.identifier, scope: 'openid read:things' });
    await logIn(page);
    expect(new URL(page.url()).pathname).toBe('/u/consent');
    await Promise.all([page.waitForURL(`${callback.origin}/**`), page.click('button[value="accept"]')]);
    const tokens = await exchange((await answerAtCallback(page)).get('code'), partner);
    expect((await verify(tokens.access_token, fx.api.identifier))).toMatchObject({ [ROLES_CLAIM]: ['editor'], scope: 'openid read:things' });
    await close();
  });

  it('a denial goes back to the redirect URI as access_denied with the reason and the state', async () => {
    const mySpa = await application('My SPA');
    await binder.bind('post-login', [postLogin('Deny example.com at My SPA', examples.DENY_EMAIL_DOMAIN_AT_APP)]);
    const { page, close } = await open(mySpa.clientId);
    await logIn(page);
    expect(Object.fromEntries(await answerAtCallback(page))).toEqual({ error: 'access_denied', error_description: 'Access to My SPA is not allowed.', state: 'app-state' });
    await close();
  });

  it('a failed action goes back to the redirect URI as server_error', async () => {
    await binder.bind('post-login', [postLogin('Throws', "exports.onExecutePostLogin = async () => { throw new Error('The CRM is unavailable'); };")]);
    const { page, close } = await open(fx.web.clientId);
    await logIn(page);
    expect(Object.fromEntries(await answerAtCallback(page))).toEqual({ error: 'server_error', error_description: "The action 'Throws' failed: The CRM is unavailable", state: 'app-state' });
    await close();
  });

  /** The request another system got at `path` about `email`, once it arrived. */
  const received = (path: string, email: string) =>
    until(async () => {
      const found = receiver.requests.find((request) => request.path === path && request.body.includes(email));
      if (!found) throw new Error(`nothing at ${path} about ${email} yet`);
      return JSON.parse(found.body) as unknown;
    }, 10_000);

  it('the hosted signup page runs post-user-registration and the hosted reset page post-change-password', async () => {
    await binder.bind('post-user-registration', [{ name: 'Notify registration', trigger: 'post-user-registration', code: examples.NOTIFY_REGISTRATION, secrets: { API_URL: receiver.url } }]);
    await binder.bind('post-change-password', [{ name: 'Revoke sessions elsewhere', trigger: 'post-change-password', code: examples.REVOKE_SESSION_ELSEWHERE, secrets: { API_URL: receiver.url } }]);
    const email = `reset-${dialect}@example.com`;
    const { page, close } = await open(fx.web.clientId, { screen_hint: 'signup' });
    await page.getByLabel('E-mail address', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(USER_PASSWORD);
    await Promise.all([page.waitForURL(`${callback.origin}/**`), page.click('button[type="submit"]')]);
    const [user] = await management.users.listUsersByEmail({ email });
    expect(await received('/users', email)).toEqual({ params: { email, user_id: user?.user_id } });

    await page.goto(`${sdk.server.url}/authorize?${new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', prompt: 'login' }).toString()}`);
    await Promise.all([page.waitForURL(/\/u\/reset-password\/request\//), page.getByRole('link', { name: 'Forgot your password?' }).click()]);
    await page.getByLabel('E-mail address').fill(email);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    await page.goto(`${sdk.server.url}/dev/outbox`);
    const message = page.locator('article').filter({ hasText: email }).filter({ has: page.locator('h2', { hasText: 'Reset your password' }) }).first();
    await Promise.all([page.waitForURL(/\/u\/reset-password\?ticket=/), message.getByRole('link', { name: /\/u\/reset-password\?ticket=/ }).click()]);
    await page.getByLabel('New password', { exact: true }).fill('Brand-new-passw0rd');
    await page.getByLabel('New password again', { exact: true }).fill('Brand-new-passw0rd');
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect(await page.getAttribute('main', 'data-screen')).toBe('reset-password-success');
    expect(await received('/revoke-session', email)).toEqual({ params: { email } });
    await close();
  });

  it('the hosted signup page shows a pre-user-registration denial\u2019s message; allowed, the new user gets the metadata set', async () => {
    const signUp = async (email: string) => {
      const opened = await open(fx.web.clientId, { screen_hint: 'signup' });
      await opened.page.getByLabel('E-mail address', { exact: true }).fill(email);
      await opened.page.getByLabel('Password', { exact: true }).fill(USER_PASSWORD);
      await Promise.all([opened.page.waitForNavigation(), opened.page.click('button[type="submit"]')]);
      return opened;
    };
    await binder.bind('pre-user-registration', [
      { name: 'IP allowlist for signups (elsewhere)', trigger: 'pre-user-registration', code: examples.IP_ALLOWLIST_PRE_USER_REGISTRATION, secrets: { ALLOW_LIST: '203.0.113.9' } },
    ]);
    const refusedEmail = `refused-${dialect}@example.com`;
    const refused = await signUp(refusedEmail);
    expect(await refused.page.textContent('#page-error')).toContain('Access denied for this IP address');
    expect(await management.users.listUsersByEmail({ email: refusedEmail })).toEqual([]);
    await sdk.server.registry.events.flush();
    const [event] = (await management.logs.list({ search: 'type:fs' })).data;
    expect(event).toMatchObject({ user_name: refusedEmail, description: 'IP not allowed', details: { actions: { executions: [expect.any(String)] } } });
    await refused.close();

    await binder.bind('pre-user-registration', [{ name: 'Set screen name', trigger: 'pre-user-registration', code: examples.SET_SCREEN_NAME }]);
    const email = `welcome-${dialect}@example.com`;
    const welcomed = await signUp(email);
    expect((await answerAtCallback(welcomed.page)).get('code')).toBeTruthy();
    const [user] = await management.users.listUsersByEmail({ email });
    expect(user?.user_metadata).toEqual({ screen_name: 'username' });
    await welcomed.close();
  });
});
