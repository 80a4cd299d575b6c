import { randomId } from '../crypto/random.js';
import type { PageWindow } from '../storage/repositories/page.js';
import type { OrganizationConnectionRecord, OrganizationRecord } from '../storage/repositories/organizations.js';
import type { Storage } from '../storage/storage.js';
import { ServiceError } from './errors.js';
import { noUser } from './users.js';

/**
 * Organizations as the platform's Management API has them: the organization itself, its members and their roles in
 * it, and the connections its members log in with. Invitations are in organization-invitations.ts.
 */

export interface OrganizationView {
  id: string;
  name: string;
  display_name?: string;
  branding?: Record<string, unknown>;
  metadata?: Record<string, string>;
}

export interface OrganizationInput {
  name?: string;
  display_name?: string;
  branding?: Record<string, unknown> | null;
  metadata?: Record<string, string> | null;
}

export interface EnabledConnectionView {
  connection_id: string;
  assign_membership_on_login: boolean;
  show_as_button: boolean;
  is_signup_enabled: boolean;
  connection: { name: string; strategy: string };
}

export interface OrganizationsDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
}

export const noOrganization = () => new ServiceError('not_found', 'No organization found by that id or name', 'inexistent_organization');

export const organizationView = (organization: OrganizationRecord): OrganizationView => ({
  id: organization.id,
  name: organization.name,
  ...(organization.displayName !== null ? { display_name: organization.displayName } : {}),
  ...(organization.branding !== null ? { branding: organization.branding } : {}),
  ...(organization.metadata !== null ? { metadata: organization.metadata } : {}),
});

export function organizationsService(deps: OrganizationsDeps) {
  const { storage, tenantId } = deps;
  const at = () => deps.now().toISOString();

  async function organization(id: string): Promise<OrganizationRecord> {
    const found = await storage.organizations.get(tenantId, id);
    if (!found) throw noOrganization();
    return found;
  }

  async function existingUsers(userIds: readonly string[]): Promise<void> {
    for (const userId of new Set(userIds)) {
      const user = await storage.users.get(tenantId, userId);
      if (!user || user.columns.linked_to !== null) throw noUser();
    }
  }

  async function member(organizationId: string, userId: string): Promise<void> {
    await organization(organizationId);
    if (!(await storage.organizations.isMember(tenantId, organizationId, userId))) {
      throw new ServiceError('not_found', 'The user is not a member of the organization.', 'inexistent_user');
    }
  }

  const uniqueName = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (storage.isUniqueViolation(error)) throw new ServiceError('conflict', 'An organization with this name already exists.', 'conflict');
      throw error;
    }
  };

  /** The roles of a page of members, by user id, each list sorted by name. */
  async function memberRoles(organizationId: string, userIds: readonly string[]): Promise<Map<string, { id: string; name: string }[]>> {
    const held = await storage.organizations.roleIdsOfMembers(tenantId, organizationId, userIds);
    const names = new Map((await storage.roles.getMany(tenantId, [...new Set([...held.values()].flat())])).map((role) => [role.id, role.name]));
    const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    const named = (roleIds: string[]) => roleIds.flatMap((id) => (names.has(id) ? [{ id, name: names.get(id) ?? '' }] : [])).sort(byName);
    return new Map([...held].map(([userId, roleIds]) => [userId, named(roleIds)]));
  }

  async function connectionView(record: OrganizationConnectionRecord): Promise<EnabledConnectionView | undefined> {
    const connection = await storage.connections.get(tenantId, record.connectionId);
    if (!connection) return undefined;
    return {
      connection_id: record.connectionId,
      assign_membership_on_login: record.assignMembershipOnLogin,
      show_as_button: record.showAsButton,
      is_signup_enabled: record.isSignupEnabled,
      connection: { name: connection.columns.name, strategy: connection.columns.strategy },
    };
  }

  return {
    async list(window: PageWindow) {
      const page = await storage.organizations.list(tenantId, window);
      return { items: page.items.map(organizationView), total: page.total };
    },
    async get(id: string): Promise<OrganizationView> {
      return organizationView(await organization(id));
    },
    async getByName(name: string): Promise<OrganizationView> {
      const found = await storage.organizations.getByName(tenantId, name);
      if (!found) throw noOrganization();
      return organizationView(found);
    },
    async create(input: OrganizationInput & { name: string }): Promise<OrganizationView> {
      const record: OrganizationRecord = {
        id: `org_${randomId(16)}`,
        name: input.name,
        displayName: input.display_name ?? null,
        branding: input.branding ?? null,
        metadata: input.metadata ?? null,
        createdAt: at(),
      };
      await uniqueName(() => storage.organizations.insert(tenantId, record));
      return organizationView(record);
    },
    async update(id: string, patch: OrganizationInput): Promise<OrganizationView> {
      const changed = await uniqueName(() =>
        storage.organizations.update(tenantId, id, {
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.display_name !== undefined ? { displayName: patch.display_name } : {}),
          ...(patch.branding !== undefined ? { branding: patch.branding } : {}),
          ...(patch.metadata !== undefined ? { metadata: patch.metadata } : {}),
        }),
      );
      if (!changed) throw noOrganization();
      return organizationView(await organization(id));
    },
    async remove(id: string): Promise<void> {
      const removed = await storage.transaction((repos) => repos.organizations.remove(tenantId, id));
      if (!removed) throw noOrganization();
    },

    /**
     * Members with the profile fields the platform lists (user_id, email, picture, name); with `withRoles`, also
     * each one's roles in the organization (`{id, name}`), which the platform sends only when asked (`fields=roles`).
     */
    async members(id: string, window: PageWindow, withRoles = false) {
      await organization(id);
      const page = await storage.organizations.members(tenantId, id, window);
      const users = await Promise.all(page.items.map((userId) => storage.users.get(tenantId, userId)));
      const roles = withRoles ? await memberRoles(id, page.items) : undefined;
      const items = users.flatMap((user) =>
        user
          ? [
              {
                user_id: user.id,
                ...(user.data.email !== undefined ? { email: user.data.email } : {}),
                ...(user.data.picture !== undefined ? { picture: user.data.picture } : {}),
                ...(user.data.name !== undefined ? { name: user.data.name } : {}),
                ...(roles ? { roles: roles.get(user.id) ?? [] } : {}),
              },
            ]
          : [],
      );
      return { items, total: page.total };
    },
    async addMembers(id: string, userIds: readonly string[]): Promise<void> {
      await organization(id);
      await existingUsers(userIds);
      await storage.organizations.addMembers(tenantId, id, userIds, at());
    },
    async removeMembers(id: string, userIds: readonly string[]): Promise<void> {
      await organization(id);
      await storage.transaction((repos) => repos.organizations.removeMembers(tenantId, id, userIds));
    },

    async memberRoles(id: string, userId: string, window: PageWindow) {
      await member(id, userId);
      const roles = await storage.roles.getMany(tenantId, await storage.organizations.memberRoleIds(tenantId, id, userId));
      const sorted = roles.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const items = sorted.slice(window.offset, window.offset + window.limit).map((role) => ({ id: role.id, name: role.name, ...(role.description !== null ? { description: role.description } : {}) }));
      return { items, total: sorted.length };
    },
    async assignMemberRoles(id: string, userId: string, roleIds: readonly string[]): Promise<void> {
      await member(id, userId);
      const unique = [...new Set(roleIds)];
      if ((await storage.roles.getMany(tenantId, unique)).length !== unique.length) throw new ServiceError('not_found', 'The role does not exist.', 'inexistent_role');
      await storage.organizations.assignMemberRoles(tenantId, id, userId, unique, at());
    },
    async removeMemberRoles(id: string, userId: string, roleIds: readonly string[]): Promise<void> {
      await member(id, userId);
      await storage.organizations.removeMemberRoles(tenantId, id, userId, roleIds);
    },

    async connections(id: string, window: PageWindow) {
      await organization(id);
      const views = (await Promise.all((await storage.organizations.connections(tenantId, id)).map(connectionView))).filter((view) => view !== undefined);
      return { items: views.slice(window.offset, window.offset + window.limit), total: views.length };
    },
    async connection(id: string, connectionId: string): Promise<EnabledConnectionView> {
      await organization(id);
      const record = await storage.organizations.connection(tenantId, id, connectionId);
      const view = record && (await connectionView(record));
      if (!view) throw new ServiceError('not_found', 'The connection is not enabled for this organization.', 'inexistent_connection');
      return view;
    },
    async addConnection(id: string, input: { connection_id: string; assign_membership_on_login?: boolean; show_as_button?: boolean; is_signup_enabled?: boolean }): Promise<EnabledConnectionView> {
      await organization(id);
      if (!(await storage.connections.get(tenantId, input.connection_id))) throw new ServiceError('not_found', 'The connection does not exist', 'inexistent_connection');
      if (await storage.organizations.connection(tenantId, id, input.connection_id)) {
        throw new ServiceError('conflict', 'The connection is already enabled for this organization.', 'conflict');
      }
      await storage.organizations.putConnection(
        tenantId,
        id,
        { connectionId: input.connection_id, assignMembershipOnLogin: input.assign_membership_on_login ?? false, showAsButton: input.show_as_button ?? true, isSignupEnabled: input.is_signup_enabled ?? true },
        at(),
      );
      return this.connection(id, input.connection_id);
    },
    async updateConnection(id: string, connectionId: string, patch: { assign_membership_on_login?: boolean; show_as_button?: boolean; is_signup_enabled?: boolean }): Promise<EnabledConnectionView> {
      const current = await this.connection(id, connectionId);
      await storage.organizations.putConnection(
        tenantId,
        id,
        {
          connectionId,
          assignMembershipOnLogin: patch.assign_membership_on_login ?? current.assign_membership_on_login,
          showAsButton: patch.show_as_button ?? current.show_as_button,
          isSignupEnabled: patch.is_signup_enabled ?? current.is_signup_enabled,
        },
        at(),
      );
      return this.connection(id, connectionId);
    },
    async removeConnection(id: string, connectionId: string): Promise<void> {
      await organization(id);
      if (!(await storage.organizations.removeConnection(tenantId, id, connectionId))) {
        throw new ServiceError('not_found', 'The connection is not enabled for this organization.', 'inexistent_connection');
      }
    },

    /** The organizations a user belongs to (`/users/{id}/organizations`), by name. */
    async ofUser(userId: string, window: PageWindow) {
      await existingUsers([userId]);
      const all = await storage.organizations.getMany(tenantId, await storage.organizations.organizationIdsOfUser(tenantId, userId));
      return { items: all.slice(window.offset, window.offset + window.limit).map(organizationView), total: all.length };
    },
  };
}

export type OrganizationsService = ReturnType<typeof organizationsService>;
