import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionData } from '../src/services/sessions.js';
import { CookieClient, inputValue } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { postJson } from './support/json-post.js';
import { provisionLogin, type LoginFixture, passwordRealmForm } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';

/**
 * The platform's documented tenant settings are accepted by PATCH /tenants/settings, and those that mean
 * something here take effect: session lifetimes (hours or minutes) on login sessions, default_audience on
 * /authorize and /oauth/token when the request names no audience.
 */
describe.each(DIALECTS)('tenant settings as the platform documents them, applied (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
  });
  afterAll(async () => server?.close());

  const settings = (body: Record<string, unknown>) => api('PATCH', '/tenants/settings', body);

  /** A hosted-page login in a fresh browser; answers the browser (holding the session cookie) and the redirect. */
  async function login(extra: Record<string, string> = {}) {
    const browser = new CookieClient(server.url);
    const query = new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', scope: 'openid', state: 's', ...extra });
    const path = (await browser.get(`/authorize?${query}`)).headers.get('location') ?? '';
    const html = await (await browser.get(path)).text();
    const done = await browser.postForm(path, { state: inputValue(html, 'state') ?? '', _csrf: inputValue(html, '_csrf') ?? '', username: fx.user.email, password: fx.user.password });
    expect(done.status).toBe(302);
    return { browser, done, location: new URL(done.headers.get('location') ?? '') };
  }

  const liveSessions = () => server.registry.storage.artifacts.listLive<SessionData>(server.registry.tenantId, 'session', { subject: fx.user.userId }, new Date().toISOString());

  it('accepts and shows the documented fields; unknown fields stay a 400', async () => {
    const documented = {
      support_email: 'help@acme.example',
      support_url: 'https://acme.example/support',
      friendly_name: 'Acme',
      picture_url: 'https://acme.example/logo.png',
      default_redirection_uri: 'https://acme.example/login',
      sandbox_version: '22',
      error_page: { html: '', show_log_link: false, url: 'https://acme.example/error' },
      change_password: { enabled: false, html: '' },
      guardian_mfa_page: { enabled: false, html: '' },
      device_flow: { charset: 'base20', mask: '****-****' },
      session_cookie: { mode: 'persistent' },
      sessions: { oidc_logout_prompt_enabled: true },
      flags: { enable_client_connections: false },
      customize_mfa_in_postlogin_action: false,
      acr_values_supported: [],
      allowed_logout_urls: ['https://acme.example/bye'],
    };
    expect((await settings(documented)).status).toBe(200);
    const { flags, ...rest } = documented;
    expect((await api('GET', '/tenants/settings')).body).toMatchObject({ ...rest, flags: { enable_advanced_customizations: true, ...flags } });
    expect((await api('GET', '/tenants/settings?fields=support_email,friendly_name')).body).toEqual({ support_email: 'help@acme.example', friendly_name: 'Acme' });
    expect(await settings({ no_such_setting: true })).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
    expect(await settings({ session_lifetime: 0 })).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
    expect(await settings({ support_url: 42 })).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
  });

  it('session_lifetime (hours) sets how long new sessions and their cookies live', async () => {
    expect((await settings({ session_lifetime: 2 })).body).toMatchObject({ session_lifetime: 2, session_lifetime_in_minutes: 120 });
    const before = Date.now();
    const { done } = await login();
    const cookie = done.headers.getSetCookie().find((line) => line.startsWith('lk_session='));
    expect(cookie).toMatch(/Max-Age=7200\b/);
    const newest = (await liveSessions()).sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
    const lifetime = Date.parse(String(newest?.expiresAt)) - before;
    expect(lifetime).toBeGreaterThan(7100_000);
    expect(lifetime).toBeLessThan(7300_000);
    // Minutes say the same.
    expect((await settings({ session_lifetime_in_minutes: 90 })).body).toMatchObject({ session_lifetime: 1.5, session_lifetime_in_minutes: 90 });
    expect((await login()).done.headers.getSetCookie().find((line) => line.startsWith('lk_session='))).toMatch(/Max-Age=5400\b/);
  });

  it('idle_session_lifetime ends a session unused for longer, where the default keeps it', async () => {
    await settings({ session_lifetime: 168 });
    const { browser } = await login({ state: 'idle' });
    const silent = async () => {
      const query = new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, response_type: 'code', scope: 'openid', prompt: 'none', state: 'quiet' });
      return new URL((await browser.get(`/authorize?${query}`)).headers.get('location') ?? '');
    };
    // The browser's session last used ten minutes ago.
    const sessions = await liveSessions();
    for (const session of sessions) {
      const tenMinutesAgo = new Date(Date.now() - 10 * 60_000).toISOString();
      await server.registry.storage.artifacts.update(server.registry.tenantId, 'session', session.id, { ...session.data, last_seen_at: tenMinutesAgo }, new Date().toISOString());
    }
    expect((await silent()).searchParams.get('code')).toBeTruthy();
    for (const session of await liveSessions()) {
      const tenMinutesAgo = new Date(Date.now() - 10 * 60_000).toISOString();
      await server.registry.storage.artifacts.update(server.registry.tenantId, 'session', session.id, { ...session.data, last_seen_at: tenMinutesAgo }, new Date().toISOString());
    }
    expect((await settings({ idle_session_lifetime_in_minutes: 5 })).body).toMatchObject({ idle_session_lifetime: 5 / 60, idle_session_lifetime_in_minutes: 5 });
    expect((await silent()).searchParams.get('error')).toBe('login_required');
    await settings({ idle_session_lifetime: 72 });
  });

  it('default_audience is the audience of /oauth/token and /authorize requests that name none', async () => {
    expect((await settings({ default_audience: fx.api.identifier })).status).toBe(200);
    const grant = await postJson(server, '/oauth/token', passwordRealmForm(fx, { scope: 'openid read:things' }));
    expect(grant.status).toBe(200);
    expect(decodeJwt(String(grant.json.access_token)).aud).toContain(fx.api.identifier);

    const { location } = await login({ state: 'aud' });
    const exchanged = await postJson(server, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
      code: location.searchParams.get('code'),
      redirect_uri: fx.web.callback,
    });
    expect(exchanged.status).toBe(200);
    expect(decodeJwt(String(exchanged.json.access_token)).aud).toContain(fx.api.identifier);

    // Unset again (an empty string, as on the platform): the access token is the opaque one for /userinfo.
    expect((await settings({ default_audience: '' })).status).toBe(200);
    const plain = await postJson(server, '/oauth/token', { grant_type: PASSWORD_REALM, client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username: fx.user.email, password: fx.user.password, realm: fx.connection, scope: 'openid' });
    expect(plain.status).toBe(200);
    expect(String(plain.json.access_token).split('.')).not.toHaveLength(3);
  });
});
