import type { ManagementClient } from 'auth0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { rejection, startServerForSdk, type SdkServer } from './support/official-sdk.js';
import { DIALECTS } from './support/services.js';

/**
 * Organizations and users' grants through the official Management SDK (npm auth0) over HTTPS, on both dialects:
 * organizations (checkpoint paging, by name), members (checkpoint paging), members' roles, enabled connections,
 * invitations, a user's organizations, `/grants`; the clean-ups when a user, role or connection goes; and the
 * refusals with the platform's statuses, error codes and scopes.
 */
describe.each(DIALECTS)('organizations through the Management SDK (%s)', (dialect) => {
  let sdk: SdkServer;
  let management: ManagementClient;
  let api: ManagementApi;
  let connectionId: string;
  let clientId: string;
  const users: string[] = [];

  beforeAll(async () => {
    sdk = await startServerForSdk({ dialect });
    management = sdk.management;
    api = managementApi(sdk.server);
    connectionId = String((await management.connections.create({ name: `orgs-db-${dialect}`, strategy: 'auth0' })).id);
    for (const name of ['ann', 'ben', 'cat']) {
      const user = await management.users.create({ connection: `orgs-db-${dialect}`, email: `${name}@orgs.example`, password: 'An orgs password 123!', name: `${name} Orgs` });
      users.push(String(user.user_id));
    }
    clientId = String((await management.clients.create({ name: 'Orgs app', app_type: 'regular_web', callbacks: ['https://orgs.example/cb'], initiate_login_uri: 'https://orgs.example/login', organization_usage: 'allow' })).client_id);
  }, 60_000);
  afterAll(async () => sdk?.close());

  it('creates, reads (by id and name), pages, updates and deletes organizations; names are unique and checked', async () => {
    const acme = await management.organizations.create({ name: 'acme', display_name: 'Acme', branding: { logo_url: 'https://acme.example/logo.png', colors: { primary: '#112233', page_background: '#ffffff' } }, metadata: { tier: 'gold' } });
    expect(acme).toMatchObject({ name: 'acme', display_name: 'Acme', metadata: { tier: 'gold' } });
    expect(String(acme.id)).toMatch(/^org_/);
    await management.organizations.create({ name: 'beta' });
    expect((await rejection(management.organizations.create({ name: 'acme' }))).statusCode).toBe(409);
    const badName = await rejection(management.organizations.create({ name: 'Not Valid!' }));
    expect(badName.statusCode).toBe(400);
    expect((await management.organizations.getByName('acme')).id).toBe(acme.id);
    expect((await management.organizations.get(String(acme.id))).branding).toMatchObject({ colors: { primary: '#112233' } });
    const missing = await rejection(management.organizations.get('org_missing'));
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toMatchObject({ errorCode: 'inexistent_organization' });

    // Checkpoint paging, as the SDK reads it.
    const first = await management.organizations.list({ take: 1 });
    expect(first.data.map((org) => org.name)).toEqual(['acme']);
    expect(first.hasNextPage()).toBe(true);
    expect((await first.getNextPage()).data.map((org) => org.name)).toEqual(['beta']);

    const renamed = await management.organizations.update(String(acme.id), { display_name: 'Acme Corp' });
    expect(renamed).toMatchObject({ display_name: 'Acme Corp', metadata: { tier: 'gold' } });
    const cleared = await api('PATCH', `/organizations/${String(acme.id)}`, { metadata: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.metadata).toBeUndefined();
    const beta = await management.organizations.getByName('beta');
    await management.organizations.delete(String(beta.id));
    expect((await rejection(management.organizations.get(String(beta.id)))).statusCode).toBe(404);
  });

  it('members with checkpoint paging, their roles, a user\u2019s organizations; deleting a user or a role cleans up', async () => {
    const org = await management.organizations.create({ name: 'members-org' });
    const id = String(org.id);
    await management.organizations.members.create(id, { members: users });
    const page = await management.organizations.members.list(id, { take: 2 });
    expect(page.data.map((member) => member.user_id)).toEqual([...users].sort().slice(0, 2));
    expect(page.data[0]).toMatchObject({ email: expect.stringMatching(/@orgs\.example$/), name: expect.stringMatching(/ Orgs$/) });
    expect((await page.getNextPage()).data).toHaveLength(1);
    const unknownUser = await rejection(management.organizations.members.create(id, { members: ['auth0|nobody'] }));
    expect(unknownUser.statusCode).toBe(404);

    const role = await management.roles.create({ name: `Org role ${dialect}` });
    const [ann = '', ben = ''] = users;
    await management.organizations.members.roles.assign(id, ann, { roles: [String(role.id)] });
    expect((await management.organizations.members.roles.list(id, ann)).data.map((entry) => entry.name)).toEqual([`Org role ${dialect}`]);
    expect((await rejection(management.organizations.members.roles.assign(id, 'auth0|nobody', { roles: [String(role.id)] }))).statusCode).toBe(404);
    expect((await management.users.organizations.list(ann)).data.map((entry) => entry.name)).toEqual(['members-org']);

    await management.organizations.members.roles.delete(id, ann, { roles: [String(role.id)] });
    expect((await management.organizations.members.roles.list(id, ann)).data).toEqual([]);
    await management.organizations.members.roles.assign(id, ann, { roles: [String(role.id)] });
    await management.roles.delete(String(role.id));
    expect((await management.organizations.members.roles.list(id, ann)).data).toEqual([]);

    await management.organizations.members.delete(id, { members: [ben] });
    expect((await management.organizations.members.list(id)).data.map((member) => member.user_id)).not.toContain(ben);
    const temporary = await management.users.create({ connection: `orgs-db-${dialect}`, email: `temp-${dialect}@orgs.example`, password: 'An orgs password 123!' });
    await management.organizations.members.create(id, { members: [String(temporary.user_id)] });
    await management.users.delete(String(temporary.user_id));
    expect((await management.organizations.members.list(id)).data.map((member) => member.user_id)).not.toContain(temporary.user_id);
  });

  it('enabled connections: add (once), read, change, list and remove; deleting the connection removes it', async () => {
    const org = await management.organizations.create({ name: 'connections-org' });
    const id = String(org.id);
    const added = await management.organizations.enabledConnections.add(id, { connection_id: connectionId, assign_membership_on_login: true });
    expect(added).toMatchObject({ connection_id: connectionId, assign_membership_on_login: true, show_as_button: true, connection: { name: `orgs-db-${dialect}`, strategy: 'auth0' } });
    expect((await rejection(management.organizations.enabledConnections.add(id, { connection_id: connectionId }))).statusCode).toBe(409);
    expect((await rejection(management.organizations.enabledConnections.add(id, { connection_id: 'con_missing' }))).statusCode).toBe(404);
    expect(await management.organizations.enabledConnections.update(id, connectionId, { show_as_button: false })).toMatchObject({ show_as_button: false, assign_membership_on_login: true });
    expect((await management.organizations.enabledConnections.list(id)).data.map((entry) => entry.connection_id)).toEqual([connectionId]);
    await management.organizations.enabledConnections.delete(id, connectionId);
    expect((await rejection(management.organizations.enabledConnections.get(id, connectionId))).statusCode).toBe(404);

    const doomed = await management.connections.create({ name: `doomed-${dialect}`, strategy: 'auth0' });
    await management.organizations.enabledConnections.add(id, { connection_id: String(doomed.id) });
    await management.connections.delete(String(doomed.id));
    expect((await management.organizations.enabledConnections.list(id)).data).toEqual([]);
  });

  it('invitations: create (link to the application\u2019s initiate_login_uri), list, read and withdraw; refusals', async () => {
    const org = await management.organizations.create({ name: 'invites-org', display_name: 'Invites' });
    const id = String(org.id);
    await management.organizations.enabledConnections.add(id, { connection_id: connectionId });
    const invitation = await management.organizations.invitations.create(id, {
      inviter: { name: 'Ann' },
      invitee: { email: 'New.Person@orgs.example' },
      client_id: clientId,
      connection_id: connectionId,
      ttl_sec: 3600,
      send_invitation_email: false,
    });
    expect(invitation).toMatchObject({ organization_id: id, inviter: { name: 'Ann' }, invitee: { email: 'new.person@orgs.example' }, client_id: clientId, connection_id: connectionId, roles: [] });
    expect(Date.parse(String(invitation.expires_at)) - Date.parse(String(invitation.created_at))).toBe(3600_000);
    const link = new URL(String(invitation.invitation_url));
    expect(link.searchParams.get('invitation')).toBe(invitation.ticket_id);
    expect((await management.organizations.invitations.get(id, String(invitation.id))).invitation_url).toBe(invitation.invitation_url);
    expect((await management.organizations.invitations.list(id)).data.map((entry) => entry.id)).toEqual([invitation.id]);

    const noUri = String((await management.clients.create({ name: 'No login URI', app_type: 'regular_web' })).client_id);
    expect((await rejection(management.organizations.invitations.create(id, { inviter: { name: 'A' }, invitee: { email: 'x@orgs.example' }, client_id: noUri }))).statusCode).toBe(400);
    expect((await rejection(management.organizations.invitations.create(id, { inviter: { name: 'A' }, invitee: { email: 'x@orgs.example' }, client_id: clientId, roles: ['rol_missing'] }))).statusCode).toBe(404);
    expect((await api('POST', `/organizations/${id}/invitations`, { inviter: { name: 'A' }, invitee: { email: 'not an address' }, client_id: clientId })).status).toBe(400);

    await management.organizations.invitations.delete(id, String(invitation.id));
    expect((await rejection(management.organizations.invitations.get(id, String(invitation.id)))).statusCode).toBe(404);
  });

  it('user grants through the SDK; every family refuses a token without its scope', async () => {
    const grants = await management.userGrants.list({ user_id: users[0] ?? '' });
    expect(grants.data).toEqual([]);
    await management.userGrants.deleteByUserId({ user_id: users[0] ?? '' });
    const token = await sdk.server.token('read:users');
    for (const [method, path] of [
      ['GET', '/organizations'],
      ['POST', '/organizations'],
      ['GET', '/organizations/org_x/members'],
      ['GET', '/organizations/org_x/enabled_connections'],
      ['GET', '/organizations/org_x/invitations'],
      ['GET', '/organizations/org_x/members/u/roles'],
      ['GET', '/grants'],
    ] as const) {
      const refused = await api(method, path, method === 'POST' ? { name: 'x' } : undefined, token);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body).toMatchObject({ errorCode: 'insufficient_scope' });
    }
  });
});
