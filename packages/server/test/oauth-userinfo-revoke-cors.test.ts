import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opaqueTokenCodec } from '../src/oauth/opaque-access-token.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture, passwordRealmForm } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

describe.each(DIALECTS)('userinfo, revocation, CORS and discovery (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
  });
  afterAll(async () => server?.close());

  async function post(path: string, body: Record<string, string>, headers: Record<string, string> = {}) {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, string> };
  }

  const login = async (scope: string, extra: Record<string, string> = {}) => {
    const answer = await post('/oauth/token', passwordRealmForm(fx, { scope, ...extra }));
    expect(answer.status, answer.text).toBe(200);
    return answer.json();
  };

  const userinfo = (token: string, method: 'GET' | 'POST' = 'GET') =>
    fetch(`${server.url}/userinfo`, { method, headers: { authorization: `Bearer ${token}` } });

  it('answers /userinfo by GET and POST with the claims the scopes allow', async () => {
    const full = await login('openid profile email');
    for (const method of ['GET', 'POST'] as const) {
      const response = await userinfo(full.access_token ?? '', method);
      expect(response.status).toBe(200);
      const profile = (await response.json()) as Record<string, unknown>;
      expect(profile).toMatchObject({ sub: fx.user.userId, name: 'Test User', email: fx.user.email, email_verified: true });
      expect(profile.nickname).toBe(fx.user.email.split('@')[0]);
      expect(String(profile.picture)).toMatch(/^https:\/\//);
      expect(new Date(String(profile.updated_at)).toISOString()).toBe(profile.updated_at);
    }
    const narrow = await login('openid');
    expect(await (await userinfo(narrow.access_token ?? '')).json()).toEqual({ sub: fx.user.userId });
    // An API token without openid is not valid at /userinfo.
    const apiOnly = await login('read:things', { audience: fx.api.identifier });
    const refused = await userinfo(apiOnly.access_token ?? '');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer realm="latchkey", error="invalid_token"/);
  });

  it('refuses missing, malformed and forged tokens with 401 and a Bearer challenge', async () => {
    const missing = await fetch(`${server.url}/userinfo`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="latchkey"');
    for (const header of ['Basic abc', 'Bearer', 'Bearer a.b.c', `Bearer ${'x'.repeat(5000)}`]) {
      const response = await fetch(`${server.url}/userinfo`, { headers: { authorization: header } });
      expect(response.status, header).toBe(401);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_token');
    }
    const real = (await login('openid')).access_token ?? '';
    const [head, payload] = real.split('.');
    const forged = `${head}.${Buffer.from(JSON.stringify({ sub: 'auth0|someone-else', aud: `${server.registry.issuer}/userinfo` })).toString('base64url')}.${real.split('.')[2]}`;
    expect((await userinfo(forged)).status).toBe(401);
    expect(payload).toBeDefined();
  });

  it('issues opaque /userinfo-only access tokens that cannot be altered, moved to another deployment or outlive exp', async () => {
    const real = (await login('openid email')).access_token ?? '';
    // Five parts: a compact JWE (alg dir, enc A256GCM), not a JWT anyone could read.
    const parts = real.split('.');
    expect(parts).toHaveLength(5);
    expect(JSON.parse(Buffer.from(parts[0] ?? '', 'base64url').toString())).toMatchObject({ alg: 'dir', enc: 'A256GCM' });
    expect((await userinfo(real)).status).toBe(200);
    const flipped = Buffer.from(parts[3] ?? '', 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    const tampered = [parts[0], parts[1], parts[2], flipped.toString('base64url'), parts[4]].join('.');
    const refused = await userinfo(tampered);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_token');
    const elsewhere = opaqueTokenCodec(Buffer.alloc(32, 7));
    const claims = server.registry.opaqueTokens.open(real) ?? {};
    expect(claims).toMatchObject({ sub: fx.user.userId, aud: `${server.registry.issuer}/userinfo`, scope: 'openid email' });
    expect((await userinfo(elsewhere.seal(claims))).status).toBe(401);
    const expired = await userinfo(server.registry.opaqueTokens.seal({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 }));
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { error_description: string }).error_description).toBe('The access token expired.');
    const otherAudience = await userinfo(server.registry.opaqueTokens.seal({ ...claims, aud: fx.api.identifier }));
    expect(otherAudience.status).toBe(401);
    // With an API and openid the token is a JWT for both audiences, and /userinfo accepts it too.
    const both = (await login('openid email', { audience: fx.api.identifier })).access_token ?? '';
    expect(both.split('.')).toHaveLength(3);
    expect((await userinfo(both)).status).toBe(200);
  });

  it('answers a polled token from its cache but still reads the user each time and refuses it once expired', async () => {
    const api = managementApi(server);
    const created = await api('POST', '/users', { connection: fx.connection, email: 'poller@example.com', password: fx.user.password, name: 'Poller' });
    expect(created.status).toBe(201);
    const userId = String(created.body.user_id);
    const claims = server.registry.opaqueTokens.open((await login('openid')).access_token ?? '') ?? {};
    const token = server.registry.opaqueTokens.seal({ ...claims, sub: userId, scope: 'openid profile', exp: Math.floor(Date.now() / 1000) + 60 });
    const first = await userinfo(token);
    expect(await first.json()).toMatchObject({ sub: userId, name: 'Poller' });
    expect((await api('PATCH', `/users/${encodeURIComponent(userId)}`, { name: 'Renamed' })).status).toBe(200);
    expect(await (await userinfo(token)).json()).toMatchObject({ sub: userId, name: 'Renamed' });
    expect((await api('PATCH', `/users/${encodeURIComponent(userId)}`, { blocked: true })).status).toBe(200);
    expect((await userinfo(token)).status).toBe(401);
    expect((await api('PATCH', `/users/${encodeURIComponent(userId)}`, { blocked: false })).status).toBe(200);
    expect((await userinfo(token)).status).toBe(200);
    // The cache follows the deployment's clock: two minutes on, the same token is expired.
    const realNow = server.registry.now;
    server.registry.now = () => new Date(Date.now() + 120_000);
    try {
      const late = await userinfo(token);
      expect(late.status).toBe(401);
      expect(((await late.json()) as { error_description: string }).error_description).toBe('The access token expired.');
    } finally {
      server.registry.now = realNow;
    }
  });

  it('revokes a refresh token and its whole grant; unknown tokens and other clients get 200 without effect', async () => {
    const tokens = await login('openid offline_access');
    const refresh = (token: string) =>
      post('/oauth/token', { grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: token });
    const rotated = (await refresh(tokens.refresh_token ?? '')).json();
    const api = managementApi(server);
    const other = await api('POST', '/clients', { name: 'Other revoker', app_type: 'regular_web' });
    const foreign = await post('/oauth/revoke', { client_id: String(other.body.client_id), client_secret: String(other.body.client_secret), token: rotated.refresh_token ?? '' });
    expect(foreign.status).toBe(200);
    expect((await post('/oauth/revoke', { client_id: fx.web.clientId, client_secret: fx.web.clientSecret, token: 'no-such-token' })).status).toBe(200);
    expect((await post('/oauth/revoke', { client_id: fx.web.clientId, client_secret: 'wrong', token: 'x' })).status).toBe(401);
    expect((await post('/oauth/revoke', { client_id: fx.web.clientId, client_secret: fx.web.clientSecret })).json().error).toBe('invalid_request');

    const revoked = await post('/oauth/revoke', { client_id: fx.web.clientId, client_secret: fx.web.clientSecret, token: rotated.refresh_token ?? '' });
    expect(revoked.status).toBe(200);
    expect(revoked.text).toBe('');
    expect((await refresh(rotated.refresh_token ?? '')).json().error).toBe('invalid_grant');
  });

  it('accepts the access token in the query of GET /userinfo (RFC 6750 2.3), once, and only there', async () => {
    const token = (await login('openid email')).access_token ?? '';
    const query = `access_token=${encodeURIComponent(token)}`;
    const viaQuery = await fetch(`${server.url}/userinfo?${query}`);
    expect(viaQuery.status).toBe(200);
    expect(await viaQuery.json()).toMatchObject({ sub: fx.user.userId, email: fx.user.email });
    expect(viaQuery.headers.get('cache-control')).toBe('private');
    // RFC 6750 3.1: two ways at once is a malformed request.
    const twice = await fetch(`${server.url}/userinfo?${query}`, { headers: { authorization: `Bearer ${token}` } });
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { error: string }).error).toBe('invalid_request');
    expect(twice.headers.get('www-authenticate')).toMatch(/^Bearer realm="latchkey", error="invalid_request"/);
    const forged = await fetch(`${server.url}/userinfo?access_token=not-a-token`);
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: string }).error).toBe('invalid_token');
    // Not in the query of a POST, nor at the Management API.
    expect((await fetch(`${server.url}/userinfo?${query}`, { method: 'POST' })).status).toBe(401);
    const management = await fetch(`${server.url}/api/v2/users?access_token=${encodeURIComponent(await server.token())}`);
    expect(management.status).toBe(401);
  });

  it('refuses the access tokens of a grant that a reused refresh token or /oauth/revoke ended, opaque and JWT alike', async () => {
    const refresh = (token: string) =>
      post('/oauth/token', { grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: token });
    const refusedAsRevoked = async (token: string) => {
      const response = await userinfo(token);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
      expect(((await response.json()) as { error_description: string }).error_description).toBe('The grant of this access token was revoked.');
    };

    const first = await login('openid offline_access');
    const rotated = (await refresh(first.refresh_token ?? '')).json();
    const other = await login('openid offline_access');
    for (const token of [first.access_token, rotated.access_token, other.access_token]) expect((await userinfo(token ?? '')).status).toBe(200);
    // The first refresh token again: it leaked, so its grant ends, and with it every access token the grant issued.
    expect((await refresh(first.refresh_token ?? '')).json().error).toBe('invalid_grant');
    await refusedAsRevoked(first.access_token ?? '');
    await refusedAsRevoked(rotated.access_token ?? '');
    // Another grant of the same user and client is not touched.
    expect((await userinfo(other.access_token ?? '')).status).toBe(200);

    // RFC 7009 2.1: revoking a refresh token also ends the access tokens of its grant, here a JWT for an API and /userinfo.
    const withApi = await login('openid offline_access', { audience: fx.api.identifier });
    expect((withApi.access_token ?? '').split('.')).toHaveLength(3);
    expect((await userinfo(withApi.access_token ?? '')).status).toBe(200);
    const revoked = await post('/oauth/revoke', { client_id: fx.web.clientId, client_secret: fx.web.clientSecret, token: withApi.refresh_token ?? '' });
    expect(revoked.status).toBe(200);
    await refusedAsRevoked(withApi.access_token ?? '');
    expect((await userinfo(other.access_token ?? '')).status).toBe(200);
  });

  it("allows browser calls only from allowed origins, and a named client's calls only from its own", async () => {
    const preflight = await fetch(`${server.url}/oauth/token`, {
      method: 'OPTIONS',
      headers: { origin: fx.spa.origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,auth0-client' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(fx.spa.origin);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Auth0-Client/i);
    // The browser library's passwordless start sends X-Request-Language when its xRequestLanguage option is set.
    const passwordlessPreflight = await fetch(`${server.url}/passwordless/start`, {
      method: 'OPTIONS',
      headers: { origin: fx.spa.origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,auth0-client,x-request-language' },
    });
    expect(passwordlessPreflight.status).toBe(204);
    const allowedHeaders = (passwordlessPreflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    expect(allowedHeaders).toEqual(expect.arrayContaining(['content-type', 'auth0-client', 'x-request-language']));

    const evil = await fetch(`${server.url}/oauth/token`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await evil.text()).toBe('Origin https://evil.example is not allowed.');
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();

    const allowed = await post('/oauth/token', { grant_type: 'refresh_token', client_id: fx.spa.clientId, refresh_token: 'nope' }, { origin: fx.spa.origin });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(fx.spa.origin);
    expect(allowed.json().error).toBe('invalid_grant');

    // An origin some other application allows is still refused for this client.
    const api = managementApi(server);
    await api('POST', '/clients', { name: 'Elsewhere', app_type: 'spa', web_origins: ['https://elsewhere.example'] });
    const crossed = await post('/oauth/token', { grant_type: 'refresh_token', client_id: fx.spa.clientId, refresh_token: 'nope' }, { origin: 'https://elsewhere.example' });
    expect(crossed.status).toBe(403);
    expect(crossed.text).toBe('Origin https://elsewhere.example is not allowed.');

    const profile = await fetch(`${server.url}/userinfo`, { headers: { origin: fx.spa.origin, authorization: 'Bearer x' } });
    expect(profile.status).toBe(401);
    expect(profile.headers.get('access-control-allow-origin')).toBe(fx.spa.origin);
  });

  it('publishes discovery metadata for what exists', async () => {
    const metadata = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: `${server.registry.issuer}/`,
      authorization_endpoint: `${server.registry.issuer}/authorize`,
      userinfo_endpoint: `${server.registry.issuer}/userinfo`,
      revocation_endpoint: `${server.registry.issuer}/oauth/revoke`,
      end_session_endpoint: `${server.registry.issuer}/oidc/logout`,
      code_challenge_methods_supported: ['S256'],
    });
    expect(metadata.response_types_supported).toEqual(expect.arrayContaining(['code', 'token', 'id_token', 'code id_token token']));
    expect(metadata.response_modes_supported).toEqual(['query', 'fragment', 'form_post', 'web_message']);
    expect(metadata.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials', 'implicit', 'http://auth0.com/oauth/grant-type/password-realm']),
    );
  });
});
