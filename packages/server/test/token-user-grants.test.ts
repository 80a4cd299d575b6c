import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';

describe.each(DIALECTS)('token endpoint: password-realm, password and refresh_token grants (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
  });
  afterAll(async () => server?.close());

  async function token(body: Record<string, string>) {
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body).toString(),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }

  const realmLogin = (extra: Record<string, string> = {}) =>
    token({
      grant_type: PASSWORD_REALM,
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
      username: fx.user.email,
      password: fx.user.password,
      realm: fx.connection,
      scope: 'openid profile email offline_access read:things',
      audience: fx.api.identifier,
      ...extra,
    });

  it('logs a user in with password-realm: RS256 access and ID tokens that verify, and a refresh token', async () => {
    const { status, body } = await realmLogin();
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'openid profile email offline_access read:things' });
    const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
    const access = await jwtVerify(body.access_token ?? '', jwks, { issuer: `${server.registry.issuer}/`, audience: fx.api.identifier });
    expect(access.payload).toMatchObject({ sub: fx.user.userId, azp: fx.web.clientId, scope: 'openid profile email offline_access read:things' });
    expect(access.payload.aud).toEqual([fx.api.identifier, `${server.registry.issuer}/userinfo`]);
    const id = await jwtVerify(body.id_token ?? '', jwks, { issuer: `${server.registry.issuer}/`, audience: fx.web.clientId });
    expect(id.payload).toMatchObject({ sub: fx.user.userId, email: fx.user.email, email_verified: true, name: 'Test User', azp: fx.web.clientId });
    expect(typeof id.payload.auth_time).toBe('number');
    expect(id.payload.at_hash).toBeTypeOf('string');
    expect(body.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('drops scopes the API does not define, and gives no refresh token without offline_access', async () => {
    const { body } = await realmLogin({ scope: 'openid read:things delete:everything' });
    expect(body.scope).toBe('openid read:things');
    expect(body.refresh_token).toBeUndefined();
  });

  it('answers wrong credentials alike for a wrong password and an unknown user (403), and refuses unknown realms', async () => {
    const wrong = await realmLogin({ password: 'not the password' });
    const unknown = await realmLogin({ username: 'nobody@example.com' });
    expect(wrong).toEqual({ status: 403, body: { error: 'invalid_grant', error_description: 'Wrong email or password.' } });
    expect(unknown).toEqual(wrong);
    expect((await realmLogin({ realm: 'no-such-connection' })).body.error).toBe('invalid_request');
    expect((await realmLogin({ realm: '' })).body.error).toBe('invalid_request');
  });

  it('refuses a blocked user (401) and a client without the grant type', async () => {
    const api = managementApi(server);
    const blocked = await api('POST', '/users', { connection: fx.connection, email: `blocked-${dialect}@example.com`, password: fx.user.password, blocked: true });
    expect(blocked.status).toBe(201);
    const answer = await realmLogin({ username: `blocked-${dialect}@example.com` });
    expect(answer).toEqual({ status: 401, body: { error: 'unauthorized', error_description: 'user is blocked' } });
    const spa = await token({ grant_type: PASSWORD_REALM, client_id: fx.spa.clientId, username: fx.user.email, password: fx.user.password, realm: fx.connection });
    expect(spa.body.error).toBe('unauthorized_client');
  });

  it('accepts the plain password grant when the client has one database connection', async () => {
    const { status, body } = await token({
      grant_type: 'password',
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
      username: fx.user.email.toUpperCase(),
      password: fx.user.password,
      scope: 'openid',
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(decodeJwt(body.id_token ?? '').sub).toBe(fx.user.userId);
  });

  it('rotates refresh tokens; a reused one revokes the whole family', async () => {
    const first = (await realmLogin()).body;
    const refresh = (refreshToken: string, extra: Record<string, string> = {}) =>
      token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: refreshToken, ...extra });
    const second = await refresh(first.refresh_token ?? '');
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.refresh_token).toBeDefined();
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(second.body.id_token ?? '').sub).toBe(fx.user.userId);
    expect(decodeJwt(second.body.access_token ?? '').aud).toEqual([fx.api.identifier, `${server.registry.issuer}/userinfo`]);

    const reuse = await refresh(first.refresh_token ?? '');
    expect(reuse).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Unknown or invalid refresh token.' } });
    // The thief reused the old token: the token the legitimate client holds now is revoked too.
    expect((await refresh(second.body.refresh_token ?? '')).body.error).toBe('invalid_grant');
  });

  it('narrows the scope of one refresh without narrowing the grant, and refuses a wider scope', async () => {
    const first = (await realmLogin()).body;
    const narrow = await token({
      grant_type: 'refresh_token',
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
      refresh_token: first.refresh_token ?? '',
      scope: 'openid read:things',
    });
    expect(narrow.status, JSON.stringify(narrow.body)).toBe(200);
    expect(narrow.body.scope).toBe('openid read:things');
    const full = await token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: narrow.body.refresh_token ?? '' });
    expect(full.body.scope).toBe('openid profile email offline_access read:things');
    const wider = await token({
      grant_type: 'refresh_token',
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
      refresh_token: full.body.refresh_token ?? '',
      scope: 'openid write:things',
    });
    expect(wider.body.error).toBe('invalid_scope');
  });

  it("refuses another client's refresh token without spending it", async () => {
    const first = (await realmLogin()).body;
    const api = managementApi(server);
    const other = await api('POST', '/clients', { name: 'Other', app_type: 'regular_web', grant_types: ['refresh_token'] });
    const stolen = await token({
      grant_type: 'refresh_token',
      client_id: String(other.body.client_id),
      client_secret: String(other.body.client_secret),
      refresh_token: first.refresh_token ?? '',
    });
    expect(stolen.body.error).toBe('invalid_grant');
    const owner = await token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: first.refresh_token ?? '' });
    expect(owner.status).toBe(200);
  });

  it('stores refresh tokens only as hashes', async () => {
    const { body } = await realmLogin();
    const rows = await server.registry.storage.artifacts.listLive(server.registry.tenantId, 'refresh_token', { subject: fx.user.userId }, new Date().toISOString());
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(body.refresh_token);
  });
});
