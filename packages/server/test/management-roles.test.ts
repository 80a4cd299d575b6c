import type { ManagementClient } from 'auth0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { rejection, startServerForSdk, type SdkServer } from './support/official-sdk.js';
import { DIALECTS } from './support/services.js';

const API = 'https://api.roles.example/';
const OTHER_API = 'https://other.roles.example/';

/**
 * Roles and permissions through the official Management SDK (npm auth0) over HTTPS, on both dialects: roles with
 * their permissions and users, a user's roles and permissions with where each comes from, the clean-ups when a
 * role, a scope, an API or a user goes, and the refusals with the platform's statuses and scopes.
 */
describe.each(DIALECTS)('roles and permissions (%s)', (dialect) => {
  let sdk: SdkServer;
  let management: ManagementClient;
  let api: ManagementApi;
  const users: string[] = [];

  beforeAll(async () => {
    sdk = await startServerForSdk({ dialect });
    management = sdk.management;
    api = managementApi(sdk.server);
    await management.resourceServers.create({ identifier: API, name: 'Roles API', scopes: [{ value: 'read:things', description: 'Read things' }, { value: 'write:things', description: 'Write things' }, { value: 'admin:things' }] });
    await management.resourceServers.create({ identifier: OTHER_API, name: 'Other API', scopes: [{ value: 'read:other' }] });
    await management.connections.create({ name: `roles-db-${dialect}`, strategy: 'auth0' });
    for (const name of ['ann', 'ben', 'cat']) {
      const user = await management.users.create({ connection: `roles-db-${dialect}`, email: `${name}@roles.example`, password: 'A roles password 123!', name: `${name} Roles` });
      users.push(String(user.user_id));
    }
  }, 60_000);
  afterAll(async () => sdk?.close());

  const permission = (permission_name: string, resource_server_identifier = API) => ({ resource_server_identifier, permission_name });

  it('creates, lists (name_filter, totals), reads, renames and deletes roles; names are unique', async () => {
    const editor = await management.roles.create({ name: 'Editor', description: 'Edits things' });
    expect(editor).toMatchObject({ name: 'Editor', description: 'Edits things' });
    expect(String(editor.id)).toMatch(/^rol_/);
    const viewer = await management.roles.create({ name: 'Viewer' });
    expect((await rejection(management.roles.create({ name: 'Editor' }))).statusCode).toBe(409);

    const all = await management.roles.list({ include_totals: true });
    expect(all.data.map((role) => role.name)).toEqual(['Editor', 'Viewer']);
    expect((await management.roles.list({ name_filter: 'VIEW' })).data.map((role) => role.id)).toEqual([viewer.id]);
    expect(await api('GET', '/roles?include_totals=true&per_page=1&page=1')).toMatchObject({ status: 200, body: { roles: [{ name: 'Viewer' }], start: 1, limit: 1, total: 2 } });

    expect(await management.roles.update(String(viewer.id), { description: 'Reads things' })).toMatchObject({ name: 'Viewer', description: 'Reads things' });
    expect(await management.roles.get(String(viewer.id))).toMatchObject({ id: viewer.id, description: 'Reads things' });
    expect((await rejection(management.roles.update(String(viewer.id), { name: 'Editor' }))).statusCode).toBe(409);

    const temporary = await management.roles.create({ name: 'Temporary' });
    await management.roles.delete(String(temporary.id));
    const gone = await rejection(management.roles.get(String(temporary.id)));
    expect(gone.statusCode).toBe(404);
    expect(gone.body).toMatchObject({ errorCode: 'inexistent_role', message: 'The role does not exist.' });

    // Each change is in the tenant log as `sapi`, and the refused read as `fapi`.
    await sdk.server.registry.events.flush();
    const logged = (await api('GET', `/logs?q=${encodeURIComponent('type:sapi OR type:fapi')}&per_page=100`)).body as unknown as { type: string; description: string }[];
    const described = logged.map((event) => `${event.type} ${event.description}`);
    for (const line of ['sapi Create a role', 'sapi Update a role', 'sapi Delete a role', 'fapi Get a role']) expect(described.some((entry) => entry.startsWith(line)), line).toBe(true);
  });

  it('grants permissions through roles and directly, and lists them with their sources', async () => {
    const [ann = '', ben = ''] = users;
    const writer = await management.roles.create({ name: 'Writer' });
    const writerId = String(writer.id);
    await management.roles.permissions.add(writerId, { permissions: [permission('read:things'), permission('write:things'), permission('read:other', OTHER_API)] });
    // Adding what a role has already changes nothing.
    await management.roles.permissions.add(writerId, { permissions: [permission('read:things')] });
    const granted = await management.roles.permissions.list(writerId, { include_totals: true });
    expect(granted.data).toEqual([
      { resource_server_identifier: API, permission_name: 'read:things', resource_server_name: 'Roles API', description: 'Read things' },
      { resource_server_identifier: API, permission_name: 'write:things', resource_server_name: 'Roles API', description: 'Write things' },
      { resource_server_identifier: OTHER_API, permission_name: 'read:other', resource_server_name: 'Other API', description: '' },
    ]);

    await management.roles.users.assign(writerId, { users: [ann, ben] });
    const members = await api('GET', `/roles/${writerId}/users?take=1`);
    expect(members.body).toMatchObject({ users: [{ user_id: [ann, ben].sort()[0] }], next: expect.any(String) });
    const rest = await api('GET', `/roles/${writerId}/users?take=1&from=${String(members.body.next)}`);
    expect(rest.body).toEqual({ users: [expect.objectContaining({ user_id: [ann, ben].sort()[1], email: expect.stringMatching(/@roles\.example$/) })] });

    await management.users.permissions.create(ann, { permissions: [permission('read:things'), permission('admin:things')] });
    const annPermissions = (await management.users.permissions.list(ann)).data as unknown as { permission_name: string; sources: { source_type: string; source_name: string }[] }[];
    expect(annPermissions.map((entry) => [entry.permission_name, entry.sources.map((source) => `${source.source_type}:${source.source_name}`).sort()])).toEqual([
      ['admin:things', ['DIRECT:']],
      ['read:things', ['DIRECT:', 'ROLE:Writer']],
      ['write:things', ['ROLE:Writer']],
      ['read:other', ['ROLE:Writer']],
    ]);
    expect((await management.users.roles.list(ann)).data.map((role) => role.name)).toEqual(['Writer']);

    await management.users.permissions.delete(ann, { permissions: [permission('admin:things')] });
    await management.roles.permissions.delete(writerId, { permissions: [permission('read:other', OTHER_API)] });
    expect(((await management.users.permissions.list(ann)).data).map((entry) => entry.permission_name)).toEqual(['read:things', 'write:things']);
    await management.users.roles.delete(ben, { roles: [writerId] });
    expect((await management.users.roles.list(ben)).data).toEqual([]);
    await management.users.roles.assign(ben, { roles: [writerId] });
    expect((await management.users.roles.list(ben)).data.map((role) => role.id)).toEqual([writerId]);
  });

  it('cleans up: a scope or an API removed takes its permissions, a role or a user removed takes its assignments', async () => {
    const cat = users[2] ?? '';
    const role = String((await management.roles.create({ name: 'Cleanup' })).id);
    await management.roles.permissions.add(role, { permissions: [permission('admin:things'), permission('read:other', OTHER_API)] });
    await management.users.permissions.create(cat, { permissions: [permission('admin:things')] });
    await management.users.roles.assign(cat, { roles: [role] });

    await management.resourceServers.update(API, { scopes: [{ value: 'read:things' }, { value: 'write:things' }] });
    expect((await management.roles.permissions.list(role)).data.map((entry) => entry.permission_name)).toEqual(['read:other']);
    expect((await management.users.permissions.list(cat)).data.map((entry) => entry.permission_name)).toEqual(['read:other']);
    await management.resourceServers.delete(OTHER_API);
    expect((await management.roles.permissions.list(role)).data).toEqual([]);

    await management.roles.delete(role);
    expect((await management.users.roles.list(cat)).data).toEqual([]);
    const { storage, tenantId } = sdk.server.registry;
    await management.users.roles.assign(cat, { roles: [String((await management.roles.list({ name_filter: 'Writer' })).data[0]?.id)] });
    await management.users.delete(cat);
    expect(await storage.roles.rolesOfUser(tenantId, cat, { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
  });

  it('refuses what does not exist, bad bodies and missing scopes, changing nothing', async () => {
    const ann = users[0] ?? '';
    const role = String((await management.roles.create({ name: 'Refusals' })).id);
    const unknownScope = await rejection(management.roles.permissions.add(role, { permissions: [permission('read:things'), permission('fly:things')] }));
    expect(unknownScope.statusCode).toBe(400);
    expect(unknownScope.body).toMatchObject({ errorCode: 'invalid_body', message: `The permission fly:things does not exist on the resource server ${API}.` });
    // Not half-applied: the valid permission of the refused request was not added either.
    expect((await management.roles.permissions.list(role)).data).toEqual([]);
    expect((await rejection(management.roles.permissions.add(role, { permissions: [permission('x', 'https://nowhere.example/')] }))).statusCode).toBe(404);
    expect((await rejection(management.roles.users.assign(role, { users: [ann, 'auth0|nobody'] }))).body).toMatchObject({ statusCode: 404, errorCode: 'inexistent_user' });
    expect((await management.roles.users.list(role)).data).toEqual([]);
    expect((await rejection(management.users.roles.assign(ann, { roles: ['rol_doesnotexist000'] }))).body).toMatchObject({ statusCode: 404, errorCode: 'inexistent_role' });
    expect((await rejection(management.users.roles.list('auth0|nobody'))).statusCode).toBe(404);

    expect((await api('POST', '/roles', { name: '' })).status).toBe(400);
    expect((await api('POST', '/roles', { name: 'x', color: 'red' })).status).toBe(400);
    expect((await api('POST', `/roles/${role}/permissions`, { permissions: [] })).status).toBe(400);
    expect((await api('POST', `/users/${encodeURIComponent(ann)}/roles`, { roles: 'rol_x' })).status).toBe(400);

    const token = await sdk.server.token('read:roles');
    const call = (method: string, path: string, body?: unknown) =>
      sdk.server.app.inject({ method: method as 'GET', url: `/api/v2${path}`, headers: { authorization: `Bearer ${token}` }, ...(body ? { payload: body as object } : {}) });
    expect((await call('GET', '/roles')).statusCode).toBe(200);
    const forbidden = await call('POST', '/roles', { name: 'Nope' });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toMatchObject({ message: 'Insufficient scope, expected any of: create:roles' });
    expect((await call('GET', `/users/${encodeURIComponent(ann)}/roles`)).statusCode).toBe(200);
    expect((await call('POST', `/users/${encodeURIComponent(ann)}/roles`, { roles: [role] })).json()).toMatchObject({ message: 'Insufficient scope, expected any of: update:users,create:role_members' });
  });
});
