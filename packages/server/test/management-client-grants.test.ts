import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_CLIENT_ID, startTestServer, type TestServer } from './support/harness.js';
import { clientCredentials, managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

describe.each(DIALECTS)('Management API client grants (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;
  const audience = `https://orders.${dialect}.example/`;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    api = managementApi(server);
    const created = await api('POST', '/resource-servers', { identifier: audience, scopes: [{ value: 'read:orders' }, { value: 'write:orders' }] });
    expect(created.status).toBe(201);
  });
  afterAll(async () => server?.close());

  async function newClient(name: string) {
    const created = await api('POST', '/clients', { name, app_type: 'non_interactive' });
    return { clientId: String(created.body.client_id), secret: String(created.body.client_secret) };
  }

  it('grants over the socket: the token endpoint issues exactly the granted scopes, and follows a PATCH', async () => {
    const socket = managementApi(server, 'socket');
    const { clientId, secret } = await newClient('Grantee');
    expect(await clientCredentials(server, clientId, secret, audience)).toMatchObject({ status: 403, body: { error: 'access_denied' } });

    const grant = await socket('POST', '/client-grants', { client_id: clientId, audience, scope: ['read:orders', 'read:orders'] });
    expect(grant.status).toBe(201);
    expect(grant.body).toEqual({ id: expect.stringMatching(/^cgr_[0-9a-f]{24}$/), client_id: clientId, audience, scope: ['read:orders'] });
    expect(await clientCredentials(server, clientId, secret, audience)).toMatchObject({ status: 200, body: { scope: 'read:orders' } });

    const id = String(grant.body.id);
    expect((await socket('GET', `/client-grants/${id}`)).body).toEqual(grant.body);
    expect((await socket('PATCH', `/client-grants/${id}`, { scope: ['write:orders'] })).body).toMatchObject({ id, scope: ['write:orders'] });
    expect(await clientCredentials(server, clientId, secret, audience)).toMatchObject({ status: 200, body: { scope: 'write:orders' } });
    expect((await socket('PATCH', `/client-grants/${id}`, { scope: null })).body).toMatchObject({ id, scope: [] });
  });

  it('one grant per client and audience (409)', async () => {
    const { clientId } = await newClient('Twice');
    expect((await api('POST', '/client-grants', { client_id: clientId, audience, scope: [] })).status).toBe(201);
    expect(await api('POST', '/client-grants', { client_id: clientId, audience, scope: ['read:orders'] })).toMatchObject({
      status: 409,
      body: { statusCode: 409, error: 'Conflict', errorCode: 'conflict', message: 'A client grant for this client and audience already exists' },
    });
    // The same client may hold grants for other APIs.
    expect((await api('POST', '/client-grants', { client_id: clientId, audience: server.audience })).body).toMatchObject({ scope: [] });
  });

  it('the client and the API must exist (404); scopes must be defined by the API (400)', async () => {
    const { clientId } = await newClient('Checked');
    expect(await api('POST', '/client-grants', { client_id: 'ghost', audience, scope: [] })).toMatchObject({
      status: 404,
      body: { errorCode: 'inexistent_client', message: 'The client does not exist' },
    });
    expect(await api('POST', '/client-grants', { client_id: clientId, audience: 'https://ghost.example/', scope: [] })).toMatchObject({
      status: 404,
      body: { errorCode: 'inexistent_resource', message: 'No resource server found for audience https://ghost.example/' },
    });
    expect(await api('POST', '/client-grants', { client_id: clientId, audience, scope: ['fly:planes', 'read:orders'] })).toMatchObject({
      status: 400,
      body: { errorCode: 'invalid_body', message: 'Scopes not defined by the resource server: fly:planes.' },
    });
    const grant = await api('POST', '/client-grants', { client_id: clientId, audience, scope: ['read:orders'] });
    expect(await api('PATCH', `/client-grants/${String(grant.body.id)}`, { scope: ['fly:planes'] })).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
    expect((await api('GET', `/client-grants/${String(grant.body.id)}`)).body).toMatchObject({ scope: ['read:orders'] });
  });

  it('404 for an unknown grant on GET and PATCH; DELETE is 204, also when already gone', async () => {
    const missing = { status: 404, body: { errorCode: 'inexistent_resource', message: 'The client grant does not exist' } };
    expect(await api('GET', '/client-grants/cgr_missing')).toMatchObject(missing);
    expect(await api('PATCH', '/client-grants/cgr_missing', { scope: [] })).toMatchObject(missing);
    const { clientId } = await newClient('Revoked');
    const grant = await api('POST', '/client-grants', { client_id: clientId, audience, scope: ['read:orders'] });
    expect(await api('DELETE', `/client-grants/${String(grant.body.id)}`)).toMatchObject({ status: 204, body: undefined });
    expect((await api('GET', `/client-grants/${String(grant.body.id)}`)).status).toBe(404);
    expect((await api('DELETE', `/client-grants/${String(grant.body.id)}`)).status).toBe(204);
  });

  it('lists by audience and client_id, with offset or checkpoint pagination', async () => {
    const clients = [await newClient('Page 1'), await newClient('Page 2'), await newClient('Page 3')];
    const ids: string[] = [];
    for (const { clientId } of clients) ids.push(String((await api('POST', '/client-grants', { client_id: clientId, audience, scope: [] })).body.id));

    const byClient = await api('GET', `/client-grants?client_id=${clients[1]?.clientId}`);
    expect(byClient.body.map((grant) => grant.id)).toEqual([ids[1]]);
    const byBoth = await api('GET', `/client-grants?client_id=${clients[1]?.clientId}&audience=${encodeURIComponent(server.audience)}`);
    expect(byBoth.body).toEqual([]);
    const admin = await api('GET', `/client-grants?client_id=${ADMIN_CLIENT_ID}&audience=${encodeURIComponent(server.audience)}`);
    expect(admin.body).toHaveLength(1);

    const forAudience = (await api('GET', `/client-grants?audience=${encodeURIComponent(audience)}&include_totals=true`)).body;
    const total = Number(forAudience.total);
    const all = (forAudience.client_grants as { id: string }[]).map((grant) => grant.id);
    // Rows created within one millisecond are ordered by id, so only membership is certain here.
    expect([...all.slice(-3)].sort()).toEqual([...ids].sort());

    // Checkpoint pagination, as the SDK pages by default: follow `next` until it is absent.
    const seen: string[] = [];
    let from: string | undefined;
    for (let guard = 0; guard < 20; guard += 1) {
      const page = await api('GET', `/client-grants?audience=${encodeURIComponent(audience)}&include_totals=true&take=2${from ? `&from=${from}` : ''}`);
      expect(page.status).toBe(200);
      expect(Object.keys(page.body).sort()).toEqual(page.body.next ? ['client_grants', 'next'] : ['client_grants']);
      seen.push(...(page.body.client_grants as { id: string }[]).map((grant) => grant.id));
      if (!page.body.next) break;
      from = String(page.body.next);
    }
    expect(seen).toEqual(all);
    expect(seen).toHaveLength(total);
    expect(await api('GET', '/client-grants?from=bm90LWEtY3Vyc29y')).toMatchObject({ status: 400, body: { errorCode: 'invalid_query_string' } });
    expect(await api('GET', '/client-grants?take=0')).toMatchObject({ status: 400, body: { errorCode: 'invalid_query_string' } });
  });

  it.each([
    [{ client_id: 'x' }, `Payload validation error: 'Missing required property: audience' on property audience (Identifier of an existing resource server.).`],
    [{ client_id: 'x', audience: 'y', scope: 'read:orders' }, `Payload validation error: 'Expected type array but found type string' on property scope`],
    [{ client_id: 'x', audience: 'y', extra: true }, `Payload validation error: 'Additional properties not allowed: extra'`],
  ])('400 invalid_body for %j', async (body, message) => {
    const response = await api('POST', '/client-grants', body);
    expect(response).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
    expect(String(response.body.message).startsWith(message)).toBe(true);
  });

  it.each([
    ['GET', '/client-grants', undefined, 'read:client_grants'],
    ['GET', '/client-grants/cgr_x', undefined, 'read:client_grants'],
    ['POST', '/client-grants', { client_id: 'x', audience: 'y' }, 'create:client_grants'],
    ['PATCH', '/client-grants/cgr_x', { scope: [] }, 'update:client_grants'],
    ['DELETE', '/client-grants/cgr_x', undefined, 'delete:client_grants'],
  ])('403 for %s %s without %s', async (method, path, body, scope) => {
    expect(await api(method, path, body, await server.token('read:clients'))).toMatchObject({ status: 403, body: { errorCode: 'insufficient_scope', message: `Insufficient scope, expected any of: ${scope}` } });
    expect((await api(method, path, body, await server.token(scope))).status).not.toBe(403);
  });
});
