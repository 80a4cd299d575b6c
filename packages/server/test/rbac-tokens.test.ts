import type { Server } from 'node:http';
import express from 'express';
import { auth, claimIncludes, requiredScopes } from 'express-oauth2-jwt-bearer';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { DIALECTS } from './support/services.js';

const API = 'https://rbac.example/api';

/**
 * RBAC in user tokens over a real socket, on both dialects: an API with `enforce_policies` issues only the requested
 * scopes the user holds (through a role or directly), `access_token_authz` adds the `permissions` claim, the RFC 9068
 * dialects type the token `at+jwt` with `client_id`, and a refresh re-reads the permissions. Tokens are verified with
 * jose against the server's JWKS, as an API would.
 */
describe.each(DIALECTS)('RBAC in access tokens (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let api: ManagementApi;
  let roleId: string;

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    api = managementApi(server, 'socket');
    expect((await api('POST', '/resource-servers', { identifier: API, name: 'RBAC API', allow_offline_access: true, scopes: [{ value: 'read:docs' }, { value: 'write:docs' }, { value: 'delete:docs' }] })).status).toBe(201);
    roleId = String((await api('POST', '/roles', { name: 'Docs editor' })).body.id);
    const permissions = (...names: string[]) => ({ permissions: names.map((permission_name) => ({ resource_server_identifier: API, permission_name })) });
    expect((await api('POST', `/roles/${roleId}/permissions`, permissions('read:docs', 'write:docs'))).status).toBe(201);
    expect((await api('POST', `/users/${encodeURIComponent(fx.user.userId)}/roles`, { roles: [roleId] })).status).toBe(204);
    expect((await api('POST', `/users/${encodeURIComponent(fx.user.userId)}/permissions`, permissions('delete:docs'))).status).toBe(201);
  }, 60_000);
  afterAll(async () => server?.close());

  const setApi = async (patch: Record<string, unknown>) => expect((await api('PATCH', `/resource-servers/${encodeURIComponent(API)}`, patch)).status).toBe(200);

  async function token(form: Record<string, string>): Promise<Record<string, unknown>> {
    const response = await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: fx.web.clientId, client_secret: fx.web.clientSecret, ...form }) });
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body;
  }
  const login = (scope: string) =>
    token({ grant_type: 'http://auth0.com/oauth/grant-type/password-realm', username: fx.user.email, password: fx.user.password, realm: fx.connection, audience: API, scope });
  const verified = async (accessToken: unknown) => {
    const { payload, protectedHeader } = await jwtVerify(String(accessToken), createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`)), { issuer: `${server.url}/`, audience: API });
    return { claims: payload, typ: protectedHeader.typ };
  };

  it('without enforce_policies, every requested scope the API defines (as before)', async () => {
    const { claims } = await verified((await login('openid read:docs write:docs delete:docs publish:docs')).access_token);
    expect(claims.scope).toBe('openid read:docs write:docs delete:docs');
    expect(claims.permissions).toBeUndefined();
  });

  it('with enforce_policies, only what the user holds; access_token_authz adds every permission held', async () => {
    await setApi({ enforce_policies: true });
    const editor = await login('openid read:docs');
    expect((await verified(editor.access_token)).claims.scope).toBe('openid read:docs');
    expect(editor.scope).toBe('openid read:docs');

    // Taken away directly: no longer in the next token.
    const user = encodeURIComponent(fx.user.userId);
    expect((await api('DELETE', `/users/${user}/permissions`, { permissions: [{ resource_server_identifier: API, permission_name: 'delete:docs' }] })).status).toBe(204);
    expect((await verified((await login('read:docs delete:docs')).access_token)).claims.scope).toBe('read:docs');

    await setApi({ token_dialect: 'access_token_authz' });
    const authz = await verified((await login('openid read:docs')).access_token);
    expect(authz.claims).toMatchObject({ scope: 'openid read:docs', permissions: ['read:docs', 'write:docs'] });
    expect(authz.typ).toBe('JWT');
  });

  it('an API protected by the platform\u2019s express-oauth2-jwt-bearer checks the scopes and the permissions claim', async () => {
    await setApi({ enforce_policies: true, token_dialect: 'access_token_authz' });
    const app = express();
    app.use(auth({ issuerBaseURL: server.url, audience: API }));
    app.get('/docs', requiredScopes('read:docs'), (_request, response) => response.json({ ok: 'read' }));
    app.get('/publish', claimIncludes('permissions', 'write:docs'), (_request, response) => response.json({ ok: 'write' }));
    app.get('/purge', claimIncludes('permissions', 'delete:docs'), (_request, response) => response.json({ ok: 'delete' }));
    const listening: Server = await new Promise((resolve) => {
      const started = app.listen(0, '127.0.0.1', () => resolve(started));
    });
    try {
      const address = listening.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const call = async (path: string, accessToken: unknown) => (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${String(accessToken)}` } })).status;
      const reader = (await login('read:docs')).access_token;
      expect(await call('/docs', reader)).toBe(200);
      expect(await call('/publish', reader)).toBe(200);
      // delete:docs was taken away in the previous test: not among the permissions (the library answers a failed
      // claim check 401 invalid_token, a missing scope 403).
      expect(await call('/purge', reader)).toBe(401);
      const noScope = (await login('openid')).access_token;
      expect(await call('/docs', noScope)).toBe(403);
      expect(await call('/docs', 'not-a-token')).toBe(401);
    } finally {
      await new Promise((resolve) => listening.close(resolve));
    }
  });

  it('RFC 9068 dialects: typ at+jwt and client_id; a refresh re-reads the permissions', async () => {
    await setApi({ enforce_policies: true, token_dialect: 'rfc9068_profile_authz' });
    const first = await login('openid offline_access read:docs write:docs');
    const rfc = await verified(first.access_token);
    expect(rfc.typ).toBe('at+jwt');
    expect(decodeProtectedHeader(String(first.access_token)).typ).toBe('at+jwt');
    expect(rfc.claims).toMatchObject({ client_id: fx.web.clientId, sub: fx.user.userId, scope: 'openid offline_access read:docs write:docs', permissions: ['read:docs', 'write:docs'] });
    expect(typeof rfc.claims.jti).toBe('string');

    // The role loses write:docs: the refreshed token no longer carries it.
    expect((await api('DELETE', `/roles/${roleId}/permissions`, { permissions: [{ resource_server_identifier: API, permission_name: 'write:docs' }] })).status).toBe(200);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: String(first.refresh_token) });
    expect((await verified(refreshed.access_token)).claims).toMatchObject({ scope: 'openid offline_access read:docs', permissions: ['read:docs'] });

    await setApi({ token_dialect: 'rfc9068_profile' });
    const plain = await verified((await login('read:docs')).access_token);
    expect(plain.typ).toBe('at+jwt');
    expect(plain.claims.permissions).toBeUndefined();
    expect((await api('GET', `/resource-servers/${encodeURIComponent(API)}`)).body).toMatchObject({ enforce_policies: true, token_dialect: 'rfc9068_profile' });
    expect((await api('PATCH', `/resource-servers/${encodeURIComponent(API)}`, { token_dialect: 'jwt' })).status).toBe(400);
  });
});
