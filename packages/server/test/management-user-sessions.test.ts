import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieClient } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, signInOnHostedPage, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const AGENT = 'Mozilla/5.0 (sessions test)';

/** A browser login of the fixture's user at its web application: the SSO session, and tokens with a refresh token. */
interface Login {
  browser: CookieClient;
  sid: string;
  refreshToken: string;
  accessToken: string;
}

describe.each(DIALECTS)('Management API: users\u2019 sessions and refresh tokens (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  const userPath = () => `/users/${encodeURIComponent(fx.user.userId)}`;

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server);
  });
  afterAll(async () => server?.close());

  const authorizeUrl = (params: Record<string, string>) =>
    `/authorize?${new URLSearchParams({ client_id: fx.web.clientId, redirect_uri: fx.web.callback, state: 'st', ...params }).toString()}`;

  const token = async (form: Record<string, string>) => {
    const response = await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  };
  const refresh = (refreshToken: string) => token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: refreshToken });

  async function login(): Promise<Login> {
    const browser = new CookieClient(server.url);
    const url = authorizeUrl({ response_type: 'code', scope: 'openid email offline_access read:things', audience: fx.api.identifier });
    const get = browser.get.bind(browser);
    const postForm = browser.postForm.bind(browser);
    browser.get = (path, headers = {}) => get(path, { 'user-agent': AGENT, ...headers });
    browser.postForm = (path, form, headers = {}) => postForm(path, form, { 'user-agent': AGENT, ...headers });
    const callback = await signInOnHostedPage(browser, server, fx, url);
    const code = callback.searchParams.get('code') ?? '';
    const issued = await token({ grant_type: 'authorization_code', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, code, redirect_uri: fx.web.callback });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    return { browser, sid: String(decodeJwt(issued.body.id_token ?? '').sid), refreshToken: issued.body.refresh_token ?? '', accessToken: issued.body.access_token ?? '' };
  }

  /** What prompt=none answers in this browser: a code while its session lives, login_required once it ended. */
  async function silently(browser: CookieClient): Promise<string | null> {
    const answer = await browser.get(authorizeUrl({ response_type: 'code', prompt: 'none', scope: 'openid' }));
    const location = new URL(answer.headers.get('location') ?? '');
    return location.searchParams.get('error') ?? (location.searchParams.has('code') ? 'code' : null);
  }

  it('lists and shows a login\u2019s session and refresh token in the platform\u2019s shapes, never the token or its hash', async () => {
    await api('DELETE', `${userPath()}/sessions`);
    await api('DELETE', `${userPath()}/refresh-tokens`);
    const { sid, refreshToken } = await login();

    const sessions = await api('GET', `${userPath()}/sessions`);
    expect(sessions.status).toBe(200);
    expect(sessions.body).toEqual({ sessions: [expect.objectContaining({ id: sid })] });
    const session = (await api('GET', `/sessions/${sid}`)).body;
    expect(session).toEqual((sessions.body.sessions as unknown[])[0]);
    expect(session).toMatchObject({
      user_id: fx.user.userId,
      device: { initial_ip: '127.0.0.1', initial_user_agent: AGENT },
      clients: [{ client_id: fx.web.clientId }],
      authentication: { methods: [{ name: 'pwd' }] },
    });
    for (const field of ['created_at', 'updated_at', 'authenticated_at', 'idle_expires_at', 'expires_at', 'last_interacted_at']) {
      expect(Date.parse(String(session[field])), field).toBeGreaterThan(Date.now() - 60_000);
    }
    // The tenant's defaults: three days without use, a week at most.
    expect(Date.parse(String(session.idle_expires_at)) - Date.parse(String(session.last_interacted_at))).toBe(72 * 3600 * 1000);
    expect(Date.parse(String(session.expires_at)) - Date.parse(String(session.created_at))).toBe(168 * 3600 * 1000);

    const tokens = await api('GET', `${userPath()}/refresh-tokens?include_totals=true`);
    expect(tokens.status).toBe(200);
    expect(tokens.body).toEqual({ tokens: [expect.objectContaining({ client_id: fx.web.clientId })] });
    const listed = (tokens.body.tokens as Record<string, unknown>[])[0] ?? {};
    expect(listed).toMatchObject({
      user_id: fx.user.userId,
      session_id: sid,
      rotating: true,
      resource_servers: [{ audience: fx.api.identifier, scopes: 'openid email offline_access read:things' }],
    });
    expect(listed.last_exchanged_at).toBeUndefined();
    expect((await api('GET', `/refresh-tokens/${String(listed.id)}`)).body).toEqual(listed);
    const [chainId = '', secret = ''] = refreshToken.split('.');
    const stored = await server.registry.storage.artifacts.get<{ secret: string }>(server.registry.tenantId, 'refresh_token', chainId);
    for (const shown of [JSON.stringify(tokens.body), JSON.stringify(listed)]) {
      for (const hidden of [chainId, secret, stored?.data.secret ?? 'missing']) expect(shown).not.toContain(hidden);
    }

    // An exchange shows as the last one, and the token is the same one (its id does not change as it rotates).
    expect((await refresh(refreshToken)).status).toBe(200);
    const after = (await api('GET', `/refresh-tokens/${String(listed.id)}`)).body;
    expect(Date.parse(String(after.last_exchanged_at))).toBeGreaterThan(Date.parse(String(listed.created_at)));
  });

  it('pages with from/take as the platform does, and refuses a cursor it did not give', async () => {
    await api('DELETE', `${userPath()}/sessions`);
    for (let i = 0; i < 3; i += 1) await login();
    const first = await api('GET', `${userPath()}/sessions?take=2`);
    expect(first.body.sessions).toHaveLength(2);
    expect(typeof first.body.next).toBe('string');
    const second = await api('GET', `${userPath()}/sessions?take=2&from=${String(first.body.next)}`);
    expect(second.body.sessions).toHaveLength(1);
    expect(second.body.next).toBeUndefined();
    const ids = [...(first.body.sessions as { id: string }[]), ...(second.body.sessions as { id: string }[])].map((session) => session.id);
    expect(new Set(ids).size).toBe(3);
    const refused = await api('GET', `${userPath()}/refresh-tokens?from=not-a-cursor`);
    expect(refused.status).toBe(400);
    expect(refused.body.errorCode).toBe('invalid_query_string');
    expect((await api('GET', `${userPath()}/sessions?take=101`)).status).toBe(400);
  });

  it('DELETE /sessions/{id} ends single sign-on in that browser; its refresh token goes on', async () => {
    const { browser, sid, refreshToken } = await login();
    const other = await login();
    expect(await silently(browser)).toBe('code');
    const deleted = await managementApi(server, 'socket')('DELETE', `/sessions/${sid}`);
    expect(deleted).toEqual({ status: 202, body: undefined });
    expect(await silently(browser)).toBe('login_required');
    expect(await silently(other.browser)).toBe('code');
    expect((await api('GET', `/sessions/${sid}`)).status).toBe(404);
    expect((await refresh(refreshToken)).status).toBe(200);
    // The tenant log records the change as every Management API change: `sapi`, with the route's pattern.
    await server.registry.events.flush();
    const logged = (await api('GET', '/logs?q=type:sapi&per_page=100')).body as { details?: { request?: { method: string; path: string } } }[];
    expect(logged.map((event) => event.details?.request)).toContainEqual({ method: 'DELETE', path: '/api/v2/sessions/:id' });
  });

  it('POST /sessions/{id}/revoke also revokes the refresh tokens issued in it, and takes both scopes', async () => {
    const { browser, sid, refreshToken, accessToken } = await login();
    const other = await login();
    const onlySessions = await server.token('delete:sessions');
    const refused = await api('POST', `/sessions/${sid}/revoke`, undefined, onlySessions);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Insufficient scope, expected all of: delete:sessions,delete:refresh_tokens');
    expect((await api('POST', `/sessions/${sid}/revoke`)).status).toBe(202);
    expect(await silently(browser)).toBe('login_required');
    expect((await refresh(refreshToken)).body.error).toBe('invalid_grant');
    // Its access tokens are refused at our own endpoints too (the grant is revoked).
    expect((await fetch(`${server.url}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(401);
    expect((await refresh(other.refreshToken)).status).toBe(200);
    expect((await api('POST', `/sessions/${sid}/revoke`)).status).toBe(404);
  });

  it('DELETE /refresh-tokens/{id} stops the token refreshing; the user-wide deletions end everything of the user', async () => {
    const first = await login();
    const second = await login();
    const listed = (await api('GET', `${userPath()}/refresh-tokens`)).body.tokens as { id: string; session_id: string }[];
    const id = listed.find((entry) => entry.session_id === first.sid)?.id ?? '';
    expect((await api('DELETE', `/refresh-tokens/${id}`)).status).toBe(202);
    expect((await refresh(first.refreshToken)).body.error).toBe('invalid_grant');
    expect((await api('GET', `/refresh-tokens/${id}`)).status).toBe(404);
    // The session it was issued in lives on.
    expect(await silently(first.browser)).toBe('code');

    expect((await api('DELETE', `${userPath()}/refresh-tokens`)).status).toBe(202);
    expect((await refresh(second.refreshToken)).body.error).toBe('invalid_grant');
    expect((await api('GET', `${userPath()}/refresh-tokens`)).body).toEqual({ tokens: [] });
    expect((await api('DELETE', `${userPath()}/sessions`)).status).toBe(202);
    expect(await silently(first.browser)).toBe('login_required');
    expect(await silently(second.browser)).toBe('login_required');
    expect((await api('GET', `${userPath()}/sessions`)).body).toEqual({ sessions: [] });
  });

  it('refuses tokens without the scopes (403), unknown users and reads of unknown ids (404); deleting an unknown id is accepted', async () => {
    const readUsers = await server.token('read:users delete:users');
    const routes: [string, string, string][] = [
      ['GET', `${userPath()}/sessions`, 'read:sessions'],
      ['DELETE', `${userPath()}/sessions`, 'delete:sessions'],
      ['GET', `${userPath()}/refresh-tokens`, 'read:refresh_tokens'],
      ['DELETE', `${userPath()}/refresh-tokens`, 'delete:refresh_tokens'],
      ['GET', '/sessions/abc', 'read:sessions'],
      ['DELETE', '/sessions/abc', 'delete:sessions'],
      ['POST', '/sessions/abc/revoke', 'delete:sessions'],
      ['GET', '/refresh-tokens/abc', 'read:refresh_tokens'],
      ['DELETE', '/refresh-tokens/abc', 'delete:refresh_tokens'],
    ];
    for (const [method, path, scope] of routes) {
      const response = await api(method, path, undefined, readUsers);
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body).toMatchObject({ errorCode: 'insufficient_scope', message: `Insufficient scope, expected any of: ${scope}` });
    }
    const nobody = `/users/${encodeURIComponent('auth0|nobody')}`;
    for (const [method, path] of [['GET', `${nobody}/sessions`], ['DELETE', `${nobody}/sessions`], ['GET', `${nobody}/refresh-tokens`], ['DELETE', `${nobody}/refresh-tokens`]]) {
      const response = await api(method ?? '', path ?? '');
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body).toMatchObject({ errorCode: 'inexistent_user', message: 'The user does not exist.' });
    }
    expect((await api('GET', '/sessions/unknown')).body).toMatchObject({ statusCode: 404, message: 'The session does not exist.', errorCode: 'inexistent_resource' });
    expect((await api('GET', '/refresh-tokens/unknown')).body).toMatchObject({ statusCode: 404, message: 'The refresh token does not exist.' });
    expect((await api('DELETE', '/sessions/unknown')).status).toBe(202);
    expect((await api('DELETE', '/refresh-tokens/unknown')).status).toBe(202);
  });

  it('shows a refresh token as its application\u2019s settings made it: not rotating, no idle expiry, an absolute end', async () => {
    const settings = { rotation_type: 'non-rotating', expiration_type: 'expiring', token_lifetime: 86_400, infinite_token_lifetime: false, infinite_idle_token_lifetime: true };
    expect((await api('PATCH', `/clients/${fx.web.clientId}`, { refresh_token: settings })).status).toBe(200);
    try {
      const { sid } = await login();
      const listed = (await api('GET', `${userPath()}/refresh-tokens`)).body.tokens as Record<string, unknown>[];
      const token = listed.find((entry) => entry.session_id === sid);
      expect(token).toMatchObject({ rotating: false, idle_expires_at: null });
      expect(Date.parse(String(token?.expires_at)) - Date.parse(String(token?.created_at))).toBe(86_400_000);
    } finally {
      await api('PATCH', `/clients/${fx.web.clientId}`, { refresh_token: null });
    }
  });

  it('a session id names a session only: the id of a refresh token\u2019s grant ends nothing through /sessions', async () => {
    const { refreshToken } = await login();
    const listed = (await api('GET', `${userPath()}/refresh-tokens`)).body.tokens as { id: string }[];
    for (const { id } of listed) expect((await api('DELETE', `/sessions/${id}`)).status).toBe(202);
    expect((await refresh(refreshToken)).status).toBe(200);
  });
});
