import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, startTestServer, type TestServer } from './support/harness.js';
import { clientCredentials, managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

describe.each(DIALECTS)('Management API resource servers (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    api = managementApi(server);
  });
  afterAll(async () => server?.close());

  const identifier = (name: string) => `https://${name}.${dialect}.example/`;

  it('creates over the socket with the platform defaults; the identifier is unique (409)', async () => {
    const socket = managementApi(server, 'socket');
    const created = await socket('POST', '/resource-servers', { identifier: identifier('billing'), scopes: [{ value: 'read:bills', description: 'Read bills' }, { value: 'pay:bills' }] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      identifier: identifier('billing'),
      name: identifier('billing'),
      scopes: [{ value: 'read:bills', description: 'Read bills' }, { value: 'pay:bills' }],
      token_lifetime: 86400,
      signing_alg: 'RS256',
      allow_offline_access: false,
      skip_consent_for_verifiable_first_party_clients: true,
      enforce_policies: false,
      token_dialect: 'access_token',
      is_system: false,
    });
    expect(await socket('POST', '/resource-servers', { identifier: identifier('billing'), name: 'Again' })).toMatchObject({
      status: 409,
      body: { statusCode: 409, error: 'Conflict', errorCode: 'conflict', message: 'A resource server with the same identifier already exists' },
    });
    expect(await socket('POST', '/resource-servers', { identifier: server.audience })).toMatchObject({ status: 409 });
  });

  it('gets by id or by URL-encoded identifier; 404 otherwise', async () => {
    const created = await api('POST', '/resource-servers', { identifier: identifier('lookup'), name: 'Lookup' });
    const id = String(created.body.id);
    expect((await api('GET', `/resource-servers/${id}`)).body).toMatchObject({ id, name: 'Lookup' });
    expect((await api('GET', `/resource-servers/${encodeURIComponent(identifier('lookup'))}`)).body).toMatchObject({ id, name: 'Lookup' });
    expect((await api('GET', `/resource-servers/${id}?include_fields=true`)).status).toBe(200);
    expect(await api('GET', '/resource-servers/ffffffffffffffffffffffff')).toMatchObject({
      status: 404,
      body: { statusCode: 404, error: 'Not Found', errorCode: 'inexistent_resource', message: 'The resource server does not exist' },
    });
  });

  it('updates partially; the identifier cannot change', async () => {
    const created = await api('POST', '/resource-servers', { identifier: identifier('orders'), name: 'Orders', scopes: [{ value: 'read:orders' }] });
    const id = String(created.body.id);
    const updated = await api('PATCH', `/resource-servers/${id}`, { token_lifetime: 600, scopes: [{ value: 'write:orders', description: 'Write' }] });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, identifier: identifier('orders'), name: 'Orders', token_lifetime: 600, scopes: [{ value: 'write:orders', description: 'Write' }], allow_offline_access: false });
    expect(await api('PATCH', `/resource-servers/${id}`, { identifier: identifier('renamed') })).toMatchObject({
      status: 400,
      body: { errorCode: 'invalid_body', message: `Payload validation error: 'Additional properties not allowed: identifier' on property identifier (unknown property).` },
    });
    expect((await api('GET', `/resource-servers/${id}`)).body).toMatchObject({ identifier: identifier('orders'), token_lifetime: 600 });
    expect((await api('PATCH', '/resource-servers/ffffffffffffffffffffffff', { name: 'x' })).status).toBe(404);
  });

  it('the system Management API: cannot be deleted, keeps its identifier, name and scopes; its token lifetime applies to tokens', async () => {
    const system = await api('GET', `/resource-servers/${encodeURIComponent(server.audience)}`);
    expect(system.body).toMatchObject({ is_system: true, identifier: server.audience, name: 'Auth0 Management API' });
    expect((system.body.scopes as unknown[]).length).toBeGreaterThan(30);
    const id = String(system.body.id);

    expect(await api('DELETE', `/resource-servers/${id}`)).toMatchObject({ status: 403, body: { errorCode: 'forbidden', message: 'The system Management API cannot be deleted.' } });
    expect(await api('PATCH', `/resource-servers/${id}`, { name: 'Mine', scopes: [] })).toMatchObject({
      status: 403,
      body: { errorCode: 'forbidden', message: 'The name and scopes of the system Management API cannot be changed.' },
    });
    expect((await api('PATCH', `/resource-servers/${id}`, { identifier: 'https://elsewhere/' })).status).toBe(400);

    expect((await api('PATCH', `/resource-servers/${id}`, { token_lifetime: 120 })).body).toMatchObject({ token_lifetime: 120, is_system: true, identifier: server.audience });
    expect((await clientCredentials(server, ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET)).body).toMatchObject({ expires_in: 120 });
    await api('PATCH', `/resource-servers/${id}`, { token_lifetime: 86400 });
    expect((await api('GET', `/resource-servers/${id}`)).body).toMatchObject({ is_system: true, identifier: server.audience, name: 'Auth0 Management API' });
  });

  it('deletes with 204 together with its client grants; deleting again is still 204', async () => {
    const created = await api('POST', '/resource-servers', { identifier: identifier('doomed'), scopes: [{ value: 'use' }] });
    const id = String(created.body.id);
    const grant = await api('POST', '/client-grants', { client_id: ADMIN_CLIENT_ID, audience: identifier('doomed'), scope: ['use'] });
    expect(grant.status).toBe(201);
    expect(await api('DELETE', `/resource-servers/${id}`)).toMatchObject({ status: 204, body: undefined });
    expect((await api('GET', `/resource-servers/${id}`)).status).toBe(404);
    expect((await api('GET', `/client-grants/${String(grant.body.id)}`)).status).toBe(404);
    expect((await api('DELETE', `/resource-servers/${id}`)).status).toBe(204);
  });

  it('lists with pagination and the identifiers filter', async () => {
    for (const name of ['list-a', 'list-b', 'list-c']) await api('POST', '/resource-servers', { identifier: identifier(name) });
    const filtered = await api('GET', `/resource-servers?identifiers=${encodeURIComponent(identifier('list-a'))}&identifiers=${encodeURIComponent(identifier('list-c'))}`);
    expect(filtered.body.map((rs) => String(rs.identifier)).sort()).toEqual([identifier('list-a'), identifier('list-c')]);
    expect((await api('GET', `/resource-servers?identifiers=${encodeURIComponent(identifier('list-b'))}`)).body.map((rs) => rs.identifier)).toEqual([identifier('list-b')]);

    const all = await api('GET', '/resource-servers?include_totals=true&per_page=100');
    const total = Number(all.body.total);
    expect(total).toBeGreaterThanOrEqual(4);
    expect((all.body.resource_servers as { is_system: boolean }[])[0]).toMatchObject({ is_system: true });
    const page = await api('GET', '/resource-servers?include_totals=true&per_page=1&page=1');
    expect(page.body).toMatchObject({ start: 1, limit: 1, total });
    expect((page.body.resource_servers as unknown[]).length).toBe(1);
    expect(await api('GET', '/resource-servers?page=-1')).toMatchObject({ status: 400, body: { errorCode: 'invalid_query_string' } });
  });

  it.each([
    [{ name: 'No identifier' }, `Payload validation error: 'Missing required property: identifier'`],
    [{ identifier: 'urn:x', token_lifetime: 59 }, `Payload validation error: 'Value 59 is less than minimum 60' on property token_lifetime`],
    [{ identifier: 'urn:x', scopes: [{ value: 'has space' }] }, `Payload validation error: 'String does not match the required format: "has space"' on property scopes[0].value`],
    [{ identifier: 'urn:x', scopes: [{ description: 'no value' }] }, `Payload validation error: 'Missing required property: value' on property scopes[0].value`],
    [{ identifier: 'urn:x', signing_alg: 'HS256' }, `Payload validation error: 'No enum match for: "HS256"' on property signing_alg`],
    [{ identifier: 'urn:x', is_system: true }, `Payload validation error: 'Additional properties not allowed: is_system'`],
  ])('400 invalid_body for %j', async (body, message) => {
    const response = await api('POST', '/resource-servers', body);
    expect(response).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
    expect(String(response.body.message).startsWith(message)).toBe(true);
  });

  it.each([
    ['GET', '/resource-servers', undefined, 'read:resource_servers'],
    ['GET', '/resource-servers/whatever', undefined, 'read:resource_servers'],
    ['POST', '/resource-servers', { identifier: 'urn:scoped' }, 'create:resource_servers'],
    ['PATCH', '/resource-servers/whatever', { name: 'x' }, 'update:resource_servers'],
    ['DELETE', '/resource-servers/whatever', undefined, 'delete:resource_servers'],
  ])('403 for %s %s without %s', async (method, path, body, scope) => {
    expect(await api(method, path, body, await server.token('read:clients'))).toMatchObject({ status: 403, body: { errorCode: 'insufficient_scope', message: `Insufficient scope, expected any of: ${scope}` } });
    expect((await api(method, path, body, await server.token(scope))).status).not.toBe(403);
  });
});
