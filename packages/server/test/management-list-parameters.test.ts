import type { ManagementClient, ManagementError } from 'auth0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { startServerForSdk, type SdkServer } from './support/official-sdk.js';

/**
 * The list parameters the platform's SDKs and deploy CLI send, and a connection's enabled applications
 * (`/connections/{id}/clients`), through the official Management SDK (npm auth0) over HTTPS and by plain calls.
 */
describe('Management list parameters and connection clients', () => {
  let sdk: SdkServer;
  let server: TestServer;
  let api: ManagementApi;
  let management: ManagementClient;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    sdk = await startServerForSdk({ dialect: 'sqlite' });
    ({ server, management } = sdk);
    api = managementApi(server);
    for (const [name, body] of [
      ['web', { name: 'List Web', app_type: 'regular_web' }],
      ['spa', { name: 'List SPA', app_type: 'spa' }],
      ['native', { name: 'List Native', app_type: 'native', is_first_party: false }],
    ] as const) {
      const created = await api('POST', '/clients', body);
      expect(created.status).toBe(201);
      ids[name] = String(created.body.client_id);
    }
  }, 60_000);
  afterAll(async () => sdk?.close());

  const clientIds = (body: unknown) => (body as { client_id: string }[]).map((client) => client.client_id).filter((id) => Object.values(ids).includes(id)).sort();

  it('filters clients by is_global, is_first_party, app_type and client_ids, and projects fields', async () => {
    const all = Object.values(ids).sort();
    expect(clientIds((await api('GET', '/clients?is_global=false')).body)).toEqual(all);
    // The global client (the platform's classic login page settings) is the one is_global=true lists.
    expect((await api('GET', '/clients?is_global=true')).body).toEqual([expect.objectContaining({ global: true, name: 'All Applications' })]);
    expect(clientIds((await api('GET', '/clients?is_first_party=false')).body)).toEqual([ids.native]);
    expect(clientIds((await api('GET', '/clients?is_first_party=true')).body)).toEqual([ids.web, ids.spa].sort());
    expect(clientIds((await api('GET', '/clients?app_type=spa,native')).body)).toEqual([ids.spa, ids.native].sort());
    expect(clientIds((await api('GET', `/clients?client_ids=${ids.web},${ids.native}`)).body)).toEqual([ids.web, ids.native].sort());
    // A query about organizations (which do not exist here) is accepted and matches nothing.
    expect(await api('GET', '/clients?q=client_grant.allow_any_organization%3Atrue&take=10')).toMatchObject({ status: 200, body: { clients: [] } });

    const included = (await api('GET', `/clients?client_ids=${ids.spa}&fields=client_id,app_type&include_fields=true`)).body;
    expect(included).toEqual([{ client_id: ids.spa, app_type: 'spa' }]);
    const excluded = (await api('GET', `/clients/${ids.spa}?fields=callbacks,client_metadata&include_fields=false`)).body;
    expect(excluded).toMatchObject({ client_id: ids.spa, name: 'List SPA' });
    expect(excluded).not.toHaveProperty('callbacks');
    expect(excluded).not.toHaveProperty('client_metadata');
    const wrapped = (await api('GET', '/clients?app_type=regular_web&include_totals=true&fields=name')).body;
    expect(wrapped).toMatchObject({ start: 0, total: 1, clients: [{ name: 'List Web' }] });
    expect(Object.keys((wrapped.clients as object[])[0] ?? {})).toEqual(['name']);

    // The SDK sends these as the deploy CLI does.
    const listed = await management.clients.list({ is_global: false, is_first_party: true, app_type: 'spa', fields: 'client_id,name', include_fields: true });
    expect(listed.data).toEqual([{ client_id: ids.spa, name: 'List SPA' }]);
    expect(await api('GET', '/clients?is_global=maybe')).toMatchObject({ status: 400, body: { errorCode: 'invalid_query_string' } });
  });

  it('accepts the other lists’ documented parameters', async () => {
    expect((await api('GET', '/connections?strategy=auth0&strategy=waad&fields=name&include_fields=true')).status).toBe(200);
    const grants = await api('GET', `/client-grants?allow_any_organization=false&subject_type=client&take=5`);
    expect(grants.status).toBe(200);
    expect(await api('GET', '/client-grants?subject_type=user')).toMatchObject({ status: 200, body: [] });
    const apis = await api('GET', '/resource-servers?include_fields=true&fields=identifier&take=1');
    expect(apis).toMatchObject({ status: 200, body: { resource_servers: [{ identifier: server.audience }] } });
    expect(Object.keys((apis.body.resource_servers as object[])[0] ?? {})).toEqual(['identifier']);
    expect((await api('GET', '/users?fields=user_id,email&include_fields=true&search_engine=v3')).status).toBe(200);
  });

  it('lists and changes the applications a connection is enabled for', async () => {
    const created = await management.connections.create({ name: 'enabled-list', strategy: 'auth0', enabled_clients: [ids.web ?? ''] });
    const connectionId = String(created.id);
    const page = async (take: number) => {
      const collected: string[] = [];
      for await (const client of await management.connections.clients.get(connectionId, { take })) collected.push(client.client_id);
      return collected;
    };
    expect(await page(50)).toEqual([ids.web]);

    await management.connections.clients.update(connectionId, [
      { client_id: ids.spa ?? '', status: true },
      { client_id: ids.native ?? '', status: true },
      { client_id: ids.web ?? '', status: false },
    ]);
    // One at a time: the SDK follows `next` (checkpoint pagination).
    expect(await page(1)).toEqual([ids.spa, ids.native]);
    expect((await api('GET', `/connections/${connectionId}`)).body.enabled_clients).toEqual([ids.spa, ids.native]);
    const first = await api('GET', `/connections/${connectionId}/clients?take=1`);
    expect(first.body).toEqual({ clients: [{ client_id: ids.spa }], next: expect.any(String) });
    expect((await api('GET', `/connections/${connectionId}/clients?take=1&from=${String(first.body.next)}`)).body).toEqual({ clients: [{ client_id: ids.native }] });

    // Naming a client twice: the last status wins; disabling an unknown client is a no-op.
    expect((await api('PATCH', `/connections/${connectionId}/clients`, [{ client_id: ids.web, status: true }, { client_id: ids.web, status: false }, { client_id: 'nobody', status: false }])).status).toBe(204);
    expect((await api('GET', `/connections/${connectionId}`)).body.enabled_clients).toEqual([ids.spa, ids.native]);

    expect(await api('PATCH', `/connections/${connectionId}/clients`, [{ client_id: 'nobody', status: true }])).toMatchObject({ status: 404, body: { errorCode: 'inexistent_client' } });
    expect(await api('PATCH', `/connections/${connectionId}/clients`, { client_id: ids.web, status: true })).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
    expect(await api('PATCH', `/connections/${connectionId}/clients`, [{ client_id: ids.web, status: 'yes' }])).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
    const tooMany = Array.from({ length: 51 }, (_, i) => ({ client_id: `c${i}`, status: false }));
    expect(await api('PATCH', `/connections/${connectionId}/clients`, tooMany)).toMatchObject({ status: 400, body: { errorCode: 'invalid_body' } });
    expect(await api('GET', '/connections/con_missing/clients')).toMatchObject({ status: 404, body: { errorCode: 'inexistent_connection' } });
    expect(await api('PATCH', '/connections/con_missing/clients', [{ client_id: ids.web, status: true }])).toMatchObject({ status: 404, body: { errorCode: 'inexistent_connection' } });

    const missing = await management.connections.clients.get('con_missing').catch((error: unknown) => error as ManagementError);
    expect((missing as ManagementError).statusCode).toBe(404);
  });

  it.each([
    ['GET', '/connections/con_x/clients', undefined, 'read:connections'],
    ['PATCH', '/connections/con_x/clients', [{ client_id: 'x', status: false }], 'update:connections'],
  ])('403 for %s %s without %s', async (method, path, body, scope) => {
    expect(await api(method, path, body, await server.token('read:users'))).toMatchObject({ status: 403, body: { errorCode: 'insufficient_scope', message: `Insufficient scope, expected any of: ${scope}` } });
    expect((await api(method, path, body, await server.token(scope))).status).toBe(404);
  });
});
