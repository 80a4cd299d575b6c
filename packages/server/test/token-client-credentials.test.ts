import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashClientSecret } from '../src/crypto/client-secret.js';
import { newClientData, type ClientData } from '../src/services/clients.js';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, startTestServer, type TestServer } from './support/harness.js';
import { DIALECTS } from './support/services.js';

describe.each(DIALECTS)('POST /oauth/token client_credentials (%s)', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
  });
  afterAll(async () => server?.close());

  const post = (body: string | Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': typeof body === 'string' ? 'application/x-www-form-urlencoded' : 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('issues an RS256 access token over a real socket with a form body (client_secret_post)', async () => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: server.audience, scope: 'read:prompts update:prompts' });
    const response = await post(form.toString());
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 86400, scope: 'read:prompts update:prompts' });
    const token = String(body.access_token);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: `${server.url}/`,
      sub: `${ADMIN_CLIENT_ID}@clients`,
      aud: server.audience,
      azp: ADMIN_CLIENT_ID,
      gty: 'client-credentials',
      scope: 'read:prompts update:prompts',
    });
    expect(typeof claims.jti).toBe('string');
    expect(Number(claims.exp) - Number(claims.iat)).toBe(86400);
  });

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const expectError = async (response: Response, status: number, error: string, description?: string | RegExp) => {
    expect(response.status).toBe(status);
    const body = (await response.json()) as { error: string; error_description: string };
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
    expect(body.error).toBe(error);
    if (description !== undefined) expect(body.error_description).toMatch(description);
    return response;
  };
  const addClient = async (id: string, secret: string | null, data: Partial<ClientData>) => {
    const { storage, tenantId, clientSecretKey } = server.registry;
    await storage.clients.insert(tenantId, {
      id,
      columns: { secret_hash: secret === null ? null : hashClientSecret(clientSecretKey, secret) },
      data: newClientData({ name: id, ...data }),
      createdAt: new Date().toISOString(),
    });
  };

  it('accepts client_secret_basic and JSON bodies, at /oauth/token/ too', async () => {
    const response = await post({ grant_type: 'client_credentials', audience: server.audience }, { authorization: basic(ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET) });
    expect(response.status).toBe(200);
    const slash = await fetch(`${server.url}/oauth/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: server.audience, ignored_extra: 'x' }),
    });
    expect(slash.status).toBe(200);
  });

  it('grants every granted scope when none is requested, and intersects a request with the grant', async () => {
    const all = (await (await post({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: server.audience })).json()) as { scope: string };
    expect(all.scope.split(' ')).toContain('read:prompts');
    expect(all.scope.split(' ').length).toBeGreaterThan(30);
    const some = (await (await post({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: server.audience, scope: 'read:prompts write:everything' })).json()) as { scope: string };
    expect(some.scope).toBe('read:prompts');
    await expectError(
      await post({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: server.audience, scope: 'write:everything' }),
      400,
      'invalid_scope',
    );
  });

  it('invalid_client 401 for an unknown client or a wrong secret, with a Basic challenge for Basic', async () => {
    await expectError(await post({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x', audience: server.audience }), 401, 'invalid_client');
    await expectError(await post({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: 'wrong', audience: server.audience }), 401, 'invalid_client');
    const challenged = await expectError(await post({ grant_type: 'client_credentials', audience: server.audience }, { authorization: basic(ADMIN_CLIENT_ID, 'wrong') }), 401, 'invalid_client');
    expect(challenged.headers.get('www-authenticate')).toMatch(/^Basic /);
    await expectError(await post({ grant_type: 'client_credentials', audience: server.audience }, { authorization: 'Basic !!!' }), 401, 'invalid_client');
  });

  it('invalid_request for a missing grant_type, two authentication methods, a missing client or a non-string parameter', async () => {
    await expectError(await post({ client_id: ADMIN_CLIENT_ID }), 400, 'invalid_request', 'Missing required parameter: grant_type');
    await expectError(
      await post({ grant_type: 'client_credentials', client_secret: ADMIN_CLIENT_SECRET, audience: server.audience }, { authorization: basic(ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET) }),
      400,
      'invalid_request',
    );
    await expectError(await post({ grant_type: 'client_credentials', audience: server.audience }), 400, 'invalid_request', /client_id/);
    await expectError(await post({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: ['a', 'b'] }), 400, 'invalid_request');
  });

  it('unsupported_grant_type for an unknown grant', async () => {
    await expectError(await post({ grant_type: 'urn:example:magic', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET }), 400, 'unsupported_grant_type');
  });

  it('access_denied 403 without an audience, for an unknown API, or without a client grant', async () => {
    await expectError(await post({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET }), 403, 'access_denied', /audience/);
    await expectError(await post({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: 'https://nope/' }), 403, 'access_denied', 'Service not found: https://nope/');
    await addClient(`m2m-${dialect}`, 'm2m-secret-0123456789', { app_type: 'non_interactive' });
    await expectError(await post({ grant_type: 'client_credentials', client_id: `m2m-${dialect}`, client_secret: 'm2m-secret-0123456789', audience: server.audience }), 403, 'access_denied', /client-grant/);
  });

  it('unauthorized_client for a public client or a client without the grant type', async () => {
    await addClient(`spa-${dialect}`, null, { app_type: 'spa' });
    await expectError(await post({ grant_type: 'client_credentials', client_id: `spa-${dialect}`, audience: server.audience }), 400, 'unauthorized_client');
    await addClient(`web-${dialect}`, 'web-secret-0123456789', { app_type: 'regular_web', grant_types: ['authorization_code'] });
    await expectError(await post({ grant_type: 'client_credentials', client_id: `web-${dialect}`, client_secret: 'web-secret-0123456789', audience: server.audience }), 400, 'unauthorized_client');
  });

  it('stores client secrets only as keyed hashes', async () => {
    const row = await server.registry.storage.clients.get(server.registry.tenantId, ADMIN_CLIENT_ID);
    expect(row?.columns.secret_hash).toBeTruthy();
    expect(row?.columns.secret_hash).not.toContain(ADMIN_CLIENT_SECRET);
    expect(JSON.stringify(row?.data)).not.toContain(ADMIN_CLIENT_SECRET);
  });
});

