import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

/**
 * `GET /organizations/{id}/members?fields=roles`, as the platform has it: roles are never in the list by default,
 * each member gets `roles: [{id, name}]` (their roles in this organization only) when `fields` names them, and
 * asking for them takes `read:organization_member_roles` besides the list's own scope.
 */
describe.each(DIALECTS)('organization members with their roles (%s)', (dialect) => {
  let server: TestServer;
  let api: ManagementApi;
  let organizationId: string;
  const users: string[] = [];
  const roles: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    api = managementApi(server);
    expect((await api('POST', '/connections', { name: 'members-db', strategy: 'auth0' })).status).toBe(201);
    for (const name of ['ann', 'ben', 'cat']) {
      const user = await api('POST', '/users', { connection: 'members-db', email: `${name}@members.example`, password: 'A members password 123!', name });
      users.push(String(user.body.user_id));
    }
    for (const name of ['Viewer', 'Billing', 'Admin']) roles[name] = String((await api('POST', '/roles', { name })).body.id);
    organizationId = String((await api('POST', '/organizations', { name: 'acme' })).body.id);
    const other = String((await api('POST', '/organizations', { name: 'other' })).body.id);
    for (const id of [organizationId, other]) expect((await api('POST', `/organizations/${id}/members`, { members: users })).status).toBe(204);
    const [ann, ben] = users;
    expect((await api('POST', `/organizations/${organizationId}/members/${encodeURIComponent(ann ?? '')}/roles`, { roles: [roles.Viewer, roles.Billing] })).status).toBe(204);
    // A role held in another organization is not one of this organization's.
    expect((await api('POST', `/organizations/${other}/members/${encodeURIComponent(ben ?? '')}/roles`, { roles: [roles.Admin] })).status).toBe(204);
  }, 60_000);
  afterAll(async () => server?.close());

  it('sends roles only when fields names them, sorted by name, per organization', async () => {
    const plain = await api('GET', `/organizations/${organizationId}/members`);
    expect(plain.status).toBe(200);
    expect(plain.body.every((member) => !('roles' in member))).toBe(true);

    const listed = await api('GET', `/organizations/${organizationId}/members?fields=user_id,email,roles&include_totals=true`);
    expect(listed.status).toBe(200);
    const byEmail = Object.fromEntries((listed.body.members as { email: string; roles: unknown; name?: string }[]).map((member) => [member.email, member]));
    expect(byEmail['ann@members.example']).toEqual({ user_id: users[0], email: 'ann@members.example', roles: [{ id: roles.Billing, name: 'Billing' }, { id: roles.Viewer, name: 'Viewer' }] });
    expect(byEmail['ben@members.example']?.roles).toEqual([]);
    expect(listed.body.total).toBe(3);

    // Excluded fields never bring the roles; nor does paging lose them.
    const excluded = await api('GET', `/organizations/${organizationId}/members?fields=roles&include_fields=false`);
    expect(excluded.body.every((member) => !('roles' in member) && typeof member.user_id === 'string')).toBe(true);
    const checkpoint = await api('GET', `/organizations/${organizationId}/members?fields=user_id,roles&take=1`);
    expect(checkpoint.body.members).toEqual([expect.objectContaining({ roles: expect.any(Array) })]);
  });

  it('asks for read:organization_member_roles to send the roles; the list alone takes read:organization_members', async () => {
    const membersOnly = await server.token('read:organization_members');
    expect((await api('GET', `/organizations/${organizationId}/members?fields=user_id,email`, undefined, membersOnly)).status).toBe(200);
    const refused = await api('GET', `/organizations/${organizationId}/members?fields=user_id,roles`, undefined, membersOnly);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ statusCode: 403, error: 'Forbidden', message: 'Insufficient scope, expected any of: read:organization_member_roles', errorCode: 'insufficient_scope' });
    const both = await server.token('read:organization_members read:organization_member_roles');
    expect((await api('GET', `/organizations/${organizationId}/members?fields=roles`, undefined, both)).status).toBe(200);
    // An unknown parameter is still refused: only the platform's fields/include_fields were added.
    expect((await api('GET', `/organizations/${organizationId}/members?with_roles=true`)).status).toBe(400);
  });

  it('answers over the socket as by inject', async () => {
    const overSocket = await managementApi(server, 'socket')('GET', `/organizations/${organizationId}/members?fields=email,roles&include_totals=true`);
    expect(overSocket.status).toBe(200);
    expect(overSocket.body.members).toContainEqual({ email: 'ann@members.example', roles: [{ id: roles.Billing, name: 'Billing' }, { id: roles.Viewer, name: 'Viewer' }] });
  });
});
