import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { PageOf, PageWindow } from './page.js';

export interface OrganizationRecord {
  id: string;
  name: string;
  displayName: string | null;
  branding: Record<string, unknown> | null;
  metadata: Record<string, string> | null;
  createdAt: string;
}

/** How an organization's members log in with one connection. */
export interface OrganizationConnectionRecord {
  connectionId: string;
  assignMembershipOnLogin: boolean;
  showAsButton: boolean;
  isSignupEnabled: boolean;
}

/** What an invitation holds besides its ids and times (stored as JSON). */
export interface InvitationData {
  inviter: { name: string };
  invitee: { email: string };
  client_id: string;
  connection_id?: string;
  app_metadata?: Record<string, unknown>;
  user_metadata?: Record<string, unknown>;
  roles: string[];
}

export interface InvitationRecord {
  id: string;
  organizationId: string;
  data: InvitationData;
  createdAt: string;
  expiresAt: string;
}

type OrganizationRow = Database['organizations'];
type ConnectionRow = Database['organization_connections'];
type InvitationRow = Database['organization_invitations'];

const json = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
const toOrganization = (row: OrganizationRow): OrganizationRecord => ({
  id: row.id,
  name: row.name,
  displayName: row.display_name,
  branding: json(row.branding),
  metadata: json(row.metadata),
  createdAt: row.created_at,
});
const toConnection = (row: Pick<ConnectionRow, 'connection_id' | 'assign_membership_on_login' | 'show_as_button' | 'is_signup_enabled'>): OrganizationConnectionRecord => ({
  connectionId: row.connection_id,
  assignMembershipOnLogin: row.assign_membership_on_login === 1,
  showAsButton: row.show_as_button === 1,
  isSignupEnabled: row.is_signup_enabled === 1,
});
const toInvitation = (row: InvitationRow): InvitationRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  data: JSON.parse(row.data) as InvitationData,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/**
 * Organizations, their members and members' roles, enabled connections and invitations (0016-organizations). Lists
 * are ordered so that pages are stable: organizations by name, members by user id, invitations by creation.
 * Adding what is there already changes nothing.
 */
export function organizationsRepository(db: Kysely<Database>) {
  const byTenant = <T extends keyof Database>(table: T, tenantId: string) => db.selectFrom(table as 'organizations').where('tenant_id', '=', tenantId);
  const page = async <Row, Item>(rows: Promise<Row[]>, count: Promise<{ n: string | number | bigint }>, map: (row: Row) => Item): Promise<PageOf<Item>> => {
    const [items, total] = await Promise.all([rows, count]);
    return { items: items.map(map), total: Number(total.n) };
  };

  return {
    async insert(tenantId: string, organization: OrganizationRecord): Promise<void> {
      await db
        .insertInto('organizations')
        .values({
          tenant_id: tenantId,
          id: organization.id,
          name: organization.name,
          display_name: organization.displayName,
          branding: organization.branding === null ? null : JSON.stringify(organization.branding),
          metadata: organization.metadata === null ? null : JSON.stringify(organization.metadata),
          created_at: organization.createdAt,
        })
        .execute();
    },

    async get(tenantId: string, id: string): Promise<OrganizationRecord | undefined> {
      const row = await byTenant('organizations', tenantId).selectAll().where('id', '=', id).executeTakeFirst();
      return row && toOrganization(row);
    },

    async getByName(tenantId: string, name: string): Promise<OrganizationRecord | undefined> {
      const row = await byTenant('organizations', tenantId).selectAll().where('name', '=', name).executeTakeFirst();
      return row && toOrganization(row);
    },

    async getMany(tenantId: string, ids: readonly string[]): Promise<OrganizationRecord[]> {
      if (ids.length === 0) return [];
      const rows = await byTenant('organizations', tenantId).selectAll().where('id', 'in', ids).orderBy('name').execute();
      return rows.map(toOrganization);
    },

    list(tenantId: string, window: PageWindow): Promise<PageOf<OrganizationRecord>> {
      const query = byTenant('organizations', tenantId);
      return page(query.selectAll().orderBy('name').offset(window.offset).limit(window.limit).execute(), query.select(db.fn.countAll().as('n')).executeTakeFirstOrThrow(), toOrganization);
    },

    /** Writes the given fields; false when there is no such organization. */
    async update(tenantId: string, id: string, changes: Partial<Pick<OrganizationRecord, 'name' | 'displayName' | 'branding' | 'metadata'>>): Promise<boolean> {
      const set: Partial<OrganizationRow> = {};
      if (changes.name !== undefined) set.name = changes.name;
      if (changes.displayName !== undefined) set.display_name = changes.displayName;
      if (changes.branding !== undefined) set.branding = changes.branding === null ? null : JSON.stringify(changes.branding);
      if (changes.metadata !== undefined) set.metadata = changes.metadata === null ? null : JSON.stringify(changes.metadata);
      if (Object.keys(set).length === 0) return (await this.get(tenantId, id)) !== undefined;
      const result = await db.updateTable('organizations').set(set).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Deletes an organization with its members, their roles, its connections and invitations. */
    async remove(tenantId: string, id: string): Promise<boolean> {
      for (const table of ['organization_members', 'organization_member_roles', 'organization_connections', 'organization_invitations'] as const) {
        await db.deleteFrom(table).where('tenant_id', '=', tenantId).where('organization_id', '=', id).execute();
      }
      const result = await db.deleteFrom('organizations').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async addMembers(tenantId: string, organizationId: string, userIds: readonly string[], at: string): Promise<void> {
      if (userIds.length === 0) return;
      await db
        .insertInto('organization_members')
        .values([...new Set(userIds)].map((userId) => ({ tenant_id: tenantId, organization_id: organizationId, user_id: userId, created_at: at })))
        .onConflict((oc) => oc.doNothing())
        .execute();
    },

    /** Removes members with their roles in the organization. */
    async removeMembers(tenantId: string, organizationId: string, userIds: readonly string[]): Promise<void> {
      if (userIds.length === 0) return;
      for (const table of ['organization_member_roles', 'organization_members'] as const) {
        await db.deleteFrom(table).where('tenant_id', '=', tenantId).where('organization_id', '=', organizationId).where('user_id', 'in', userIds).execute();
      }
    },

    async isMember(tenantId: string, organizationId: string, userId: string): Promise<boolean> {
      const row = await db
        .selectFrom('organization_members')
        .select('user_id')
        .where('tenant_id', '=', tenantId)
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The ids of an organization's members, in id order. */
    members(tenantId: string, organizationId: string, window: PageWindow): Promise<PageOf<string>> {
      const query = db.selectFrom('organization_members').where('tenant_id', '=', tenantId).where('organization_id', '=', organizationId);
      return page(
        query.select('user_id').orderBy('user_id').offset(window.offset).limit(window.limit).execute(),
        query.select(db.fn.countAll().as('n')).executeTakeFirstOrThrow(),
        (row) => row.user_id,
      );
    },

    /** The ids of the organizations a user belongs to. */
    async organizationIdsOfUser(tenantId: string, userId: string): Promise<string[]> {
      const rows = await db.selectFrom('organization_members').select('organization_id').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
      return rows.map((row) => row.organization_id);
    },

    async assignMemberRoles(tenantId: string, organizationId: string, userId: string, roleIds: readonly string[], at: string): Promise<void> {
      if (roleIds.length === 0) return;
      await db
        .insertInto('organization_member_roles')
        .values([...new Set(roleIds)].map((roleId) => ({ tenant_id: tenantId, organization_id: organizationId, user_id: userId, role_id: roleId, created_at: at })))
        .onConflict((oc) => oc.doNothing())
        .execute();
    },

    async removeMemberRoles(tenantId: string, organizationId: string, userId: string, roleIds: readonly string[]): Promise<void> {
      if (roleIds.length === 0) return;
      await db
        .deleteFrom('organization_member_roles')
        .where('tenant_id', '=', tenantId)
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .where('role_id', 'in', roleIds)
        .execute();
    },

    /** The role ids a member holds in the organization. */
    async memberRoleIds(tenantId: string, organizationId: string, userId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('organization_member_roles')
        .select('role_id')
        .where('tenant_id', '=', tenantId)
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .execute();
      return rows.map((row) => row.role_id);
    },

    /** The role ids each of some members holds in the organization (one query for a page of members). */
    async roleIdsOfMembers(tenantId: string, organizationId: string, userIds: readonly string[]): Promise<Map<string, string[]>> {
      const held = new Map<string, string[]>();
      if (userIds.length === 0) return held;
      const rows = await db
        .selectFrom('organization_member_roles')
        .select(['user_id', 'role_id'])
        .where('tenant_id', '=', tenantId)
        .where('organization_id', '=', organizationId)
        .where('user_id', 'in', userIds)
        .execute();
      for (const row of rows) held.set(row.user_id, [...(held.get(row.user_id) ?? []), row.role_id]);
      return held;
    },

    /** The names of the permissions a member holds for one API through their roles in the organization, sorted. */
    async memberPermissionNames(tenantId: string, organizationId: string, userId: string, audience: string): Promise<string[]> {
      const rows = await db
        .selectFrom('organization_member_roles as mr')
        .innerJoin('role_permissions as rp', (join) => join.onRef('rp.tenant_id', '=', 'mr.tenant_id').onRef('rp.role_id', '=', 'mr.role_id'))
        .select('rp.permission_name')
        .distinct()
        .where('mr.tenant_id', '=', tenantId)
        .where('mr.organization_id', '=', organizationId)
        .where('mr.user_id', '=', userId)
        .where('rp.resource_server_identifier', '=', audience)
        .execute();
      // Sorted here rather than in SQL: the same order on both dialects, whatever the database's collation.
      return rows.map((row) => row.permission_name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    },

    /** Sets how members log in with a connection (added, or changed when it is there). */
    async putConnection(tenantId: string, organizationId: string, connection: OrganizationConnectionRecord, at: string): Promise<void> {
      const values = {
        assign_membership_on_login: connection.assignMembershipOnLogin ? 1 : 0,
        show_as_button: connection.showAsButton ? 1 : 0,
        is_signup_enabled: connection.isSignupEnabled ? 1 : 0,
      };
      await db
        .insertInto('organization_connections')
        .values({ tenant_id: tenantId, organization_id: organizationId, connection_id: connection.connectionId, created_at: at, ...values })
        .onConflict((oc) => oc.columns(['tenant_id', 'organization_id', 'connection_id']).doUpdateSet(values))
        .execute();
    },

    async connection(tenantId: string, organizationId: string, connectionId: string): Promise<OrganizationConnectionRecord | undefined> {
      const row = await db
        .selectFrom('organization_connections')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('organization_id', '=', organizationId)
        .where('connection_id', '=', connectionId)
        .executeTakeFirst();
      return row && toConnection(row);
    },

    /** An organization's connections, in the order they were enabled. */
    async connections(tenantId: string, organizationId: string): Promise<OrganizationConnectionRecord[]> {
      const rows = await db
        .selectFrom('organization_connections')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('organization_id', '=', organizationId)
        .orderBy('created_at')
        .orderBy('connection_id')
        .execute();
      return rows.map(toConnection);
    },

    async removeConnection(tenantId: string, organizationId: string, connectionId: string): Promise<boolean> {
      const result = await db
        .deleteFrom('organization_connections')
        .where('tenant_id', '=', tenantId)
        .where('organization_id', '=', organizationId)
        .where('connection_id', '=', connectionId)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async insertInvitation(tenantId: string, invitation: InvitationRecord, ticketHash: string): Promise<void> {
      await db
        .insertInto('organization_invitations')
        .values({
          tenant_id: tenantId,
          id: invitation.id,
          organization_id: invitation.organizationId,
          ticket_hash: ticketHash,
          data: JSON.stringify(invitation.data),
          created_at: invitation.createdAt,
          expires_at: invitation.expiresAt,
        })
        .execute();
    },

    async invitation(tenantId: string, organizationId: string, id: string): Promise<InvitationRecord | undefined> {
      const row = await db
        .selectFrom('organization_invitations')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toInvitation(row);
    },

    async invitationByTicket(tenantId: string, ticketHash: string): Promise<InvitationRecord | undefined> {
      const row = await db.selectFrom('organization_invitations').selectAll().where('tenant_id', '=', tenantId).where('ticket_hash', '=', ticketHash).executeTakeFirst();
      return row && toInvitation(row);
    },

    invitations(tenantId: string, organizationId: string, window: PageWindow): Promise<PageOf<InvitationRecord>> {
      const query = db.selectFrom('organization_invitations').where('tenant_id', '=', tenantId).where('organization_id', '=', organizationId);
      return page(
        query.selectAll().orderBy('created_at').orderBy('id').offset(window.offset).limit(window.limit).execute(),
        query.select(db.fn.countAll().as('n')).executeTakeFirstOrThrow(),
        toInvitation,
      );
    },

    /** Deletes an invitation; false when it was gone already (an accepted invitation is deleted once). */
    async removeInvitation(tenantId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('organization_invitations').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /** A deleted user's memberships and roles in every organization. */
    async removeUser(tenantId: string, userId: string): Promise<void> {
      for (const table of ['organization_member_roles', 'organization_members'] as const) {
        await db.deleteFrom(table).where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
      }
    },

    /** A deleted role, taken from the members who held it. */
    async removeRole(tenantId: string, roleId: string): Promise<void> {
      await db.deleteFrom('organization_member_roles').where('tenant_id', '=', tenantId).where('role_id', '=', roleId).execute();
    },

    /** A deleted connection, no longer enabled for any organization. */
    async removeConnectionEverywhere(tenantId: string, connectionId: string): Promise<void> {
      await db.deleteFrom('organization_connections').where('tenant_id', '=', tenantId).where('connection_id', '=', connectionId).execute();
    },
  };
}
