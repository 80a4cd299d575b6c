import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, passwordRealmForm, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

/**
 * A client's `refresh_token` settings through the Management API, and what the token endpoint then does: rotation
 * or one reusable token, chains that keep the settings they were issued under. The lifetimes themselves run on a
 * moved clock in refresh-token-lifetime.test.ts.
 */
describe.each(DIALECTS)('client refresh_token settings (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;
  let fx: LoginFixture;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    api = managementApi(server);
    fx = await provisionLogin(server);
  });
  afterAll(async () => server?.close());

  async function token(body: Record<string, string>) {
    const response = await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }
  const login = async () => {
    const answer = await token(passwordRealmForm(fx, { scope: 'openid offline_access', audience: fx.api.identifier }));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.refresh_token ?? '';
  };
  const refresh = (refreshToken: string) => token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: refreshToken });
  const path = () => `/clients/${fx.web.clientId}`;

  it('shows every client its settings over the socket: the default is rotating, 30 days idle, no absolute limit', async () => {
    const read = await managementApi(server, 'socket')('GET', path());
    expect(read.status).toBe(200);
    expect(read.body.refresh_token).toEqual({
      rotation_type: 'rotating',
      expiration_type: 'expiring',
      leeway: 0,
      token_lifetime: 2592000,
      infinite_token_lifetime: true,
      idle_token_lifetime: 2592000,
      infinite_idle_token_lifetime: false,
    });
    // The global client ("All Applications") holds no settings, and is still listed.
    const global = await api('GET', '/clients?is_global=true');
    expect(global.status).toBe(200);
    expect(global.body[0]?.refresh_token).toBeUndefined();
  });

  it('non-rotating: a refresh answers no new refresh token, and the one token works again; chains issued before keep rotating', async () => {
    const rotatingChain = await login();
    const changed = await api('PATCH', path(), { refresh_token: { rotation_type: 'non-rotating', expiration_type: 'non-expiring' } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.refresh_token).toMatchObject({ rotation_type: 'non-rotating', expiration_type: 'non-expiring', idle_token_lifetime: 2592000 });

    const fixed = await login();
    for (let use = 0; use < 3; use += 1) {
      const answer = await refresh(fixed);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.access_token).toBeTypeOf('string');
      expect(answer.body.refresh_token).toBeUndefined();
    }
    // The chain issued under the rotating settings still rotates, and its spent token is still reuse.
    const rotated = await refresh(rotatingChain);
    expect(rotated.body.refresh_token).toBeTypeOf('string');
    expect((await refresh(rotatingChain)).body.error).toBe('invalid_grant');
  });

  it('a PATCH keeps the lifetimes it leaves out; null returns to the default', async () => {
    const set = await api('PATCH', path(), { refresh_token: { rotation_type: 'rotating', expiration_type: 'expiring', leeway: 10, token_lifetime: 86400, infinite_token_lifetime: false, idle_token_lifetime: 3600 } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const kept = await api('PATCH', path(), { refresh_token: { rotation_type: 'rotating', expiration_type: 'expiring', idle_token_lifetime: 7200 } });
    expect(kept.body.refresh_token).toMatchObject({ leeway: 10, token_lifetime: 86400, infinite_token_lifetime: false, idle_token_lifetime: 7200 });
    const reset = await api('PATCH', path(), { refresh_token: null });
    expect(reset.body.refresh_token).toMatchObject({ rotation_type: 'rotating', leeway: 0, infinite_token_lifetime: true, idle_token_lifetime: 2592000 });
  });

  it('refuses rotation without expiry, an idle lifetime past the absolute one, and a body without its two types', async () => {
    const refusals = [
      [{ rotation_type: 'rotating', expiration_type: 'non-expiring' }, /rotation_type 'rotating' requires/],
      [{ rotation_type: 'rotating', expiration_type: 'expiring', infinite_token_lifetime: false, token_lifetime: 3600, idle_token_lifetime: 7200 }, /idle_token_lifetime must not exceed/],
      [{ expiration_type: 'expiring' }, /rotation_type/],
      [{ rotation_type: 'rotating', expiration_type: 'expiring', leeway: -1 }, /leeway/],
    ] as const;
    for (const [body, message] of refusals) {
      const refused = await api('PATCH', path(), { refresh_token: body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body).toMatchObject({ statusCode: 400, error: 'Bad Request', errorCode: 'invalid_body' });
      expect(String(refused.body.message)).toMatch(message);
    }
    const created = await api('POST', '/clients', { name: 'Never rotating forever', refresh_token: { rotation_type: 'rotating', expiration_type: 'non-expiring' } });
    expect(created.status).toBe(400);
  });
});
