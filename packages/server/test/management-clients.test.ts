import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyClientSecret } from '../src/crypto/client-secret.js';
import { ADMIN_CLIENT_ID, startTestServer, type TestServer } from './support/harness.js';
import { clientCredentials, managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

describe.each(DIALECTS)('Management API clients (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    api = managementApi(server);
  });
  afterAll(async () => server?.close());

  const row = (clientId: string) => server.registry.storage.clients.get(server.registry.tenantId, clientId);
  /** A confidential client holding a grant on the Management API, so its secret can be tried at the token endpoint. */
  async function grantedClient(name: string) {
    const created = await api('POST', '/clients', { name, app_type: 'non_interactive' });
    const clientId = String(created.body.client_id);
    expect((await api('POST', '/client-grants', { client_id: clientId, audience: server.audience, scope: ['read:users'] })).status).toBe(201);
    return { clientId, secret: String(created.body.client_secret) };
  }

  it('creates a confidential client over the socket; the secret is in that answer only and stored as a hash', async () => {
    const socket = managementApi(server, 'socket');
    const created = await socket('POST', '/clients', {
      name: 'Backend',
      description: 'Nightly jobs',
      logo_uri: 'https://cdn.example/logo.png',
      app_type: 'non_interactive',
      allowed_origins: ['https://jobs.example'],
      is_first_party: false,
      client_metadata: { team: 'a' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Backend',
      description: 'Nightly jobs',
      logo_uri: 'https://cdn.example/logo.png',
      app_type: 'non_interactive',
      callbacks: [],
      allowed_logout_urls: [],
      web_origins: [],
      allowed_origins: ['https://jobs.example'],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_post',
      jwt_configuration: { alg: 'RS256', lifetime_in_seconds: 36000 },
      cross_origin_authentication: false,
      is_first_party: false,
      client_metadata: { team: 'a' },
      tenant: server.registry.tenantId,
      global: false,
    });
    const clientId = String(created.body.client_id);
    const secret = String(created.body.client_secret);
    expect(secret.length).toBeGreaterThanOrEqual(43);

    const stored = await row(clientId);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(verifyClientSecret(server.registry.clientSecretKey, secret, String(stored?.columns.secret_hash))).toBe(true);

    const fetched = await socket('GET', `/clients/${clientId}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).not.toHaveProperty('client_secret');
    expect(fetched.body).toMatchObject({ client_id: clientId, name: 'Backend' });
    const listed = await socket('GET', '/clients?per_page=100');
    expect(listed.body.find((client) => client.client_id === clientId)).not.toHaveProperty('client_secret');
    expect(JSON.stringify(listed.body)).not.toContain(secret);
  });

  it('defaults a SPA to a public client: no secret, browser grant types', async () => {
    const spa = await api('POST', '/clients', { name: 'SPA', app_type: 'spa', callbacks: ['https://app.example/cb'], web_origins: ['https://app.example'] });
    expect(spa.status).toBe(201);
    expect(spa.body).toMatchObject({ token_endpoint_auth_method: 'none', grant_types: ['implicit', 'authorization_code', 'refresh_token'], callbacks: ['https://app.example/cb'], web_origins: ['https://app.example'] });
    expect(spa.body).not.toHaveProperty('client_secret');
    expect((await row(String(spa.body.client_id)))?.columns.secret_hash).toBeNull();
  });

  it('rotates the secret: the new one is shown once and works, the old one stops working', async () => {
    const { clientId, secret } = await grantedClient('Rotating');
    expect((await clientCredentials(server, clientId, secret)).status).toBe(200);

    const rotated = await api('POST', `/clients/${clientId}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const newSecret = String(rotated.body.client_secret);
    expect(newSecret.length).toBeGreaterThanOrEqual(43);
    expect(newSecret).not.toBe(secret);
    expect(await clientCredentials(server, clientId, secret)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect((await clientCredentials(server, clientId, newSecret)).status).toBe(200);
    expect((await api('GET', `/clients/${clientId}`)).body).not.toHaveProperty('client_secret');
    expect(JSON.stringify(await row(clientId))).not.toContain(newSecret);
  });

  it('rotate-secret: 400 for a public client, 404 for an unknown one, 403 without update:client_keys', async () => {
    const spa = await api('POST', '/clients', { name: 'Public', app_type: 'native' });
    expect(await api('POST', `/clients/${String(spa.body.client_id)}/rotate-secret`)).toMatchObject({
      status: 400,
      body: { errorCode: 'invalid_body', message: 'A public client (token_endpoint_auth_method none) has no secret to rotate.' },
    });
    expect(await api('POST', '/clients/missing/rotate-secret')).toMatchObject({ status: 404, body: { errorCode: 'inexistent_client', message: 'The client does not exist' } });
    const updater = await server.token('update:clients');
    expect(await api('POST', `/clients/${ADMIN_CLIENT_ID}/rotate-secret`, undefined, updater)).toMatchObject({
      status: 403,
      body: { errorCode: 'insufficient_scope', message: 'Insufficient scope, expected any of: update:client_keys' },
    });
  });

  it('updates partially: other fields stay, jwt_configuration and client_metadata merge, no secret in the answer', async () => {
    const created = await api('POST', '/clients', { name: 'Web', app_type: 'regular_web', client_metadata: { keep: '1', drop: '2' }, callbacks: ['https://a.example/cb'] });
    const id = String(created.body.client_id);
    const updated = await api('PATCH', `/clients/${id}`, {
      callbacks: ['https://b.example/cb'],
      jwt_configuration: { alg: 'HS256' },
      cross_origin_authentication: true,
      client_metadata: { drop: null, add: '3' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'Web',
      app_type: 'regular_web',
      callbacks: ['https://b.example/cb'],
      jwt_configuration: { alg: 'HS256', lifetime_in_seconds: 36000 },
      cross_origin_authentication: true,
      client_metadata: { keep: '1', add: '3' },
    });
    expect(updated.body.client_metadata).not.toHaveProperty('drop');
    expect(updated.body).not.toHaveProperty('client_secret');
    expect((await api('GET', `/clients/${id}`)).body).toMatchObject({ callbacks: ['https://b.example/cb'], client_metadata: { keep: '1', add: '3' } });
    expect(await api('PATCH', '/clients/missing', { name: 'y' })).toMatchObject({ status: 404, body: { errorCode: 'inexistent_client' } });
  });

  it('a client turned public loses its secret; turned confidential again it needs rotate-secret', async () => {
    const { clientId, secret } = await grantedClient('Switching');
    expect((await api('PATCH', `/clients/${clientId}`, { token_endpoint_auth_method: 'none' })).body).toMatchObject({ token_endpoint_auth_method: 'none' });
    expect((await row(clientId))?.columns.secret_hash).toBeNull();
    expect((await clientCredentials(server, clientId, secret)).status).toBe(401);

    const confidential = await api('PATCH', `/clients/${clientId}`, { token_endpoint_auth_method: 'client_secret_basic' });
    expect(confidential.status).toBe(200);
    expect(confidential.body).not.toHaveProperty('client_secret');
    const rotated = await api('POST', `/clients/${clientId}/rotate-secret`);
    expect((await clientCredentials(server, clientId, String(rotated.body.client_secret))).status).toBe(200);
  });

  it('deletes with 204, together with its grants and its place on connections; deleting again is still 204', async () => {
    const { clientId } = await grantedClient('Doomed');
    const connection = await api('POST', '/connections', { name: `doomed-${dialect}`, strategy: 'auth0', enabled_clients: [clientId, ADMIN_CLIENT_ID] });
    const deleted = await api('DELETE', `/clients/${clientId}`);
    expect(deleted).toMatchObject({ status: 204, body: undefined });
    expect((await api('GET', `/clients/${clientId}`)).status).toBe(404);
    expect((await api('GET', `/client-grants?client_id=${clientId}`)).body).toEqual([]);
    expect((await api('GET', `/connections/${String(connection.body.id)}`)).body).toMatchObject({ enabled_clients: [ADMIN_CLIENT_ID] });
    expect((await api('DELETE', `/clients/${clientId}`)).status).toBe(204);
  });

  it('lists with page/per_page, or inside {clients, start, limit, total}', async () => {
    for (const name of ['List A', 'List B', 'List C']) await api('POST', '/clients', { name, app_type: 'spa' });
    const all = await api('GET', '/clients?per_page=100&include_totals=true');
    const total = Number(all.body.total);
    expect(total).toBeGreaterThanOrEqual(4);
    expect(all.body).toMatchObject({ start: 0, limit: 100 });
    expect((all.body.clients as unknown[]).length).toBe(total);
    const ids = (all.body.clients as { client_id: string }[]).map((client) => client.client_id);
    expect(ids).toContain(ADMIN_CLIENT_ID);

    const second = await api('GET', '/clients?per_page=2&page=1&include_totals=true');
    expect(second.body).toMatchObject({ start: 2, limit: 2, total });
    expect((second.body.clients as { client_id: string }[]).map((client) => client.client_id)).toEqual(ids.slice(2, 4));
    const bare = await api('GET', '/clients?per_page=2&page=1&fields=client_id,name&include_fields=true');
    expect(bare.body.map((client) => client.client_id)).toEqual(ids.slice(2, 4));
    expect(bare.body.map((client) => Object.keys(client).sort())).toEqual([['client_id', 'name'], ['client_id', 'name']]);
    expect(await api('GET', '/clients?per_page=101')).toMatchObject({ status: 400, body: { errorCode: 'invalid_query_string' } });
  });

  it.each([
    [{ app_type: 'spa' }, `Payload validation error: 'Missing required property: name' on property name (Name of the application (no < or >).).`],
    [{ name: 'x', app_type: 'desktop' }, `Payload validation error: 'No enum match for: "desktop"' on property app_type (Type of application: spa, native, regular_web or non_interactive.).`],
    [{ name: 'x', unknown_field: 1 }, `Payload validation error: 'Additional properties not allowed: unknown_field' on property unknown_field (unknown property).`],
    [{ name: '<script>' }, `Payload validation error: 'String does not match the required format: "<script>"' on property name (Name of the application (no < or >).).`],
    [{ name: 'x', description: 'd'.repeat(141) }, `Payload validation error: 'String is too long (141 chars), maximum 140' on property description (Free-text description (at most 140 characters).).`],
    [{ name: 'x', jwt_configuration: { alg: 'PS256' } }, `Payload validation error: 'No enum match for: "PS256"' on property jwt_configuration.alg (ID token signing algorithm: RS256 (default) or HS256.).`],
    [{ name: 'x', grant_types: ['magic'] }, `Payload validation error: 'No enum match for: "magic"'`],
    [{ name: 'x', client_metadata: { n: 1 } }, `Payload validation error: 'Expected type string but found type integer' on property client_metadata.n`],
    [{ name: 'x', client_metadata: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])) }, `Payload validation error: 'Too many properties defined (11), must be at most 10' on property client_metadata`],
    [{ name: 'x', client_secret: 'chosen' }, `Payload validation error: 'Additional properties not allowed: client_secret'`],
  ])('400 invalid_body for %j', async (body, message) => {
    const response = await api('POST', '/clients', body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, error: 'Bad Request', errorCode: 'invalid_body' });
    expect(String(response.body.message).startsWith(message)).toBe(true);
  });

  it('400 for an empty PATCH and for a PATCH of the client id', async () => {
    expect(await api('PATCH', `/clients/${ADMIN_CLIENT_ID}`, {})).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
    expect(await api('PATCH', `/clients/${ADMIN_CLIENT_ID}`, { client_id: 'other' })).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
  });

  it.each([
    ['GET', '/clients', undefined, 'read:clients'],
    ['GET', `/clients/${ADMIN_CLIENT_ID}`, undefined, 'read:clients'],
    ['POST', '/clients', { name: 'x' }, 'create:clients'],
    ['PATCH', `/clients/${ADMIN_CLIENT_ID}`, { description: 'x' }, 'update:clients'],
    ['DELETE', '/clients/whatever', undefined, 'delete:clients'],
  ])('403 for %s %s without %s', async (method, path, body, scope) => {
    const other = await server.token('read:users');
    expect(await api(method, path, body, other)).toMatchObject({ status: 403, body: { statusCode: 403, errorCode: 'insufficient_scope', message: `Insufficient scope, expected any of: ${scope}` } });
    expect((await api(method, path, body, await server.token(scope))).status).not.toBe(403);
  });
});
