import type { ManagementClient } from 'auth0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { startServerForSdk, type SdkServer } from './support/official-sdk.js';
import { DIALECTS } from './support/services.js';

const DB = 'Username-Password-Authentication';

describe.each(DIALECTS)('Management API user search (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    api = managementApi(server);
    expect((await api('POST', '/connections', { name: DB, strategy: 'auth0' })).status).toBe(201);
    expect((await api('POST', '/connections', { name: 'other-db', strategy: 'auth0' })).status).toBe(201);
    const people = [
      { key: 'alice', connection: DB, email: 'Alice@Example.com', name: 'Alice Smith', given_name: 'Alice', app_metadata: { plan: 'pro' } },
      { key: 'bob', connection: DB, email: 'bob@example.com', name: 'Bob Jones', blocked: true, app_metadata: { plan: 'free' } },
      { key: 'carol', connection: 'other-db', email: 'carol@example.org', name: 'Carol Smith', user_metadata: { team: 'red' } },
      { key: 'dave', connection: 'other-db', email: 'dave@example.net', name: 'Aaron Dave', app_metadata: { roles: ['admin', 'ops'], level: 5, vip: true, code: '007' } },
    ];
    for (const { key, ...person } of people) {
      const created = await api('POST', '/users', { password: 'correct horse battery staple 9', ...person });
      expect(created.status).toBe(201);
      ids[key] = String(created.body.user_id);
    }
  });
  afterAll(async () => server?.close());

  const search = async (query: Record<string, string>) => {
    const response = await api('GET', `/users?${new URLSearchParams(query).toString()}`);
    return response;
  };
  const emails = async (q: string) => {
    const response = await search({ q, sort: 'email:1' });
    expect(response.status).toBe(200);
    return (response.body as unknown as { email: string }[]).map((user) => user.email);
  };

  it('finds only bob by his e-mail (the match-all bug is gone), case-insensitively', async () => {
    expect(await emails('email:"bob@example.com"')).toEqual(['bob@example.com']);
    expect(await emails('email:"BOB@example.com"')).toEqual(['bob@example.com']);
  });

  it('prefixes, booleans, metadata, identities, AND / OR / NOT, _exists_ and ranges', async () => {
    expect(await emails('email:ali*')).toEqual(['alice@example.com']);
    expect(await emails('name:"Carol Smith" OR name:Bob*')).toEqual(['bob@example.com', 'carol@example.org']);
    expect(await emails('blocked:true')).toEqual(['bob@example.com']);
    expect(await emails('app_metadata.plan:pro')).toEqual(['alice@example.com']);
    expect(await emails('user_metadata.team:red')).toEqual(['carol@example.org']);
    // A value in an array, a number, a boolean and a string of digits, the same on both dialects.
    expect(await emails('app_metadata.roles:admin')).toEqual(['dave@example.net']);
    expect(await emails('app_metadata.roles:"ops" AND app_metadata.level:5 AND app_metadata.vip:true')).toEqual(['dave@example.net']);
    expect(await emails('app_metadata.code:"007"')).toEqual(['dave@example.net']);
    expect(await emails('app_metadata.level:6 OR app_metadata.roles:adm OR app_metadata.vip:false')).toEqual([]);
    expect(await emails('identities.connection:"other-db"')).toEqual(['carol@example.org', 'dave@example.net']);
    expect(await emails(`identities.provider:auth0 AND NOT identities.connection:"${DB}"`)).toEqual(['carol@example.org', 'dave@example.net']);
    expect(await emails('-blocked:true')).toEqual(['alice@example.com', 'carol@example.org', 'dave@example.net']);
    expect(await emails('_exists_:given_name')).toEqual(['alice@example.com']);
    expect(await emails('logins_count:[0 TO *] AND created_at:[2000-01-01 TO *]')).toHaveLength(4);
    expect(await emails('created_at:{* TO 2000-01-01}')).toEqual([]);
    expect(await emails(`user_id:"${ids.bob}"`)).toEqual(['bob@example.com']);
  });

  it('sorts, pages with totals, and projects fields', async () => {
    const sorted = await search({ q: 'email:*example*', sort: 'name:-1' });
    expect(sorted.status).toBe(400);
    const page = await search({ q: 'identities.provider:auth0', sort: 'name:-1', include_totals: 'true', per_page: '2', page: '0', fields: 'email,name' });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 4, start: 0, limit: 2 });
    expect((page.body as unknown as { users: unknown[] }).users).toEqual([
      { email: 'carol@example.org', name: 'Carol Smith' },
      { email: 'bob@example.com', name: 'Bob Jones' },
    ]);
  });

  it('answers 400 invalid_query_string for what it cannot search, never a match-all', async () => {
    for (const q of ['bob', 'favourite_colour:blue', 'email:"unterminated', 'name:b*b', 'name:bob~', 'name:[a TO b]', 'email:/bob/']) {
      const response = await search({ q });
      expect(response.status, q).toBe(400);
      expect(response.body, q).toMatchObject({ statusCode: 400, errorCode: 'invalid_query_string' });
    }
    expect((await search({ q: 'email:bob*', sort: 'password:1' })).status).toBe(400);
    expect((await search({ q: 'email:bob*', per_page: '100', page: '10' })).status).toBe(400);
  });
});

/** The official Management SDK searching users over HTTPS (the SDK always builds https://{domain}/api/v2). */
describe('user search through the official Management SDK (npm auth0)', () => {
  let sdk: SdkServer;
  let management: ManagementClient;

  beforeAll(async () => {
    sdk = await startServerForSdk({ dialect: 'sqlite' });
    ({ management } = sdk);
    await management.connections.create({ name: DB, strategy: 'auth0' });
  });
  afterAll(async () => sdk?.close());

  it('lists with q, sort and fields', async () => {
    for (const [email, name] of [['dora@example.com', 'Dora'], ['dan@example.com', 'Dan'], ['eve@example.com', 'Eve']]) {
      await management.users.create({ connection: DB, email, name, password: 'a long sdk passphrase 2' });
    }
    const found: Record<string, unknown>[] = [];
    for await (const user of await management.users.list({ q: 'email:d*', sort: 'name:1', fields: 'email,name', include_fields: true, search_engine: 'v3' })) {
      found.push(user as Record<string, unknown>);
    }
    expect(found).toEqual([
      { email: 'dan@example.com', name: 'Dan' },
      { email: 'dora@example.com', name: 'Dora' },
    ]);
  });
});
