import { randomId } from '../crypto/random.js';
import type { PageWindow } from '../storage/repositories/page.js';
import type { PermissionKey, RoleRecord } from '../storage/repositories/roles.js';
import type { Storage } from '../storage/storage.js';
import { ServiceError } from './errors.js';
import { noUser } from './users.js';

/**
 * Role-based access control as the platform's Management API has it: roles, the permissions they grant (scopes of
 * APIs), who holds them, and permissions given to users directly.
 */

export interface RoleView {
  id: string;
  name: string;
  description?: string;
}

export interface PermissionView extends PermissionKey {
  resource_server_name: string;
  description: string;
}

export interface UserPermissionView extends PermissionView {
  sources: { source_id: string; source_name: string; source_type: 'DIRECT' | 'ROLE' }[];
}

export interface RolesDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
}

const noRole = () => new ServiceError('not_found', 'The role does not exist.', 'inexistent_role');
const view = (role: RoleRecord): RoleView => ({ id: role.id, name: role.name, ...(role.description !== null ? { description: role.description } : {}) });

export function rolesService(deps: RolesDeps) {
  const { storage, tenantId } = deps;
  const at = () => deps.now().toISOString();

  async function role(id: string): Promise<RoleRecord> {
    const found = await storage.roles.get(tenantId, id);
    if (!found) throw noRole();
    return found;
  }

  async function existingUser(userId: string): Promise<void> {
    const user = await storage.users.get(tenantId, userId);
    if (!user || user.columns.linked_to !== null) throw noUser();
  }

  /** The APIs the permissions name, by identifier; each permission must be a scope its API defines. */
  async function described(permissions: readonly PermissionKey[]): Promise<Map<string, { name: string; scopes: Map<string, string> }>> {
    const apis = new Map<string, { name: string; scopes: Map<string, string> }>();
    for (const identifier of new Set(permissions.map((permission) => permission.resource_server_identifier))) {
      const api = await storage.resourceServers.findOne(tenantId, { identifier });
      if (api) apis.set(identifier, { name: api.data.name ?? identifier, scopes: new Map(api.data.scopes.map((scope) => [scope.value, scope.description ?? ''])) });
    }
    return apis;
  }

  async function checkedPermissions(permissions: readonly PermissionKey[]): Promise<PermissionKey[]> {
    const apis = await described(permissions);
    for (const permission of permissions) {
      const api = apis.get(permission.resource_server_identifier);
      if (!api) throw new ServiceError('not_found', `The resource server ${permission.resource_server_identifier} does not exist.`, 'inexistent_resource');
      if (!api.scopes.has(permission.permission_name)) {
        throw new ServiceError('invalid', `The permission ${permission.permission_name} does not exist on the resource server ${permission.resource_server_identifier}.`, 'invalid_body');
      }
    }
    return permissions.map(({ resource_server_identifier, permission_name }) => ({ resource_server_identifier, permission_name }));
  }

  async function permissionViews<T extends PermissionKey>(permissions: T[]): Promise<(T & PermissionView)[]> {
    const apis = await described(permissions);
    return permissions.map((permission) => {
      const api = apis.get(permission.resource_server_identifier);
      return { ...permission, resource_server_name: api?.name ?? permission.resource_server_identifier, description: api?.scopes.get(permission.permission_name) ?? '' };
    });
  }

  async function checkedRoles(ids: readonly string[]): Promise<RoleRecord[]> {
    const unique = [...new Set(ids)];
    const found = await storage.roles.getMany(tenantId, unique);
    if (found.length !== unique.length) throw noRole();
    return found;
  }

  const uniqueName = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (storage.isUniqueViolation(error)) throw new ServiceError('conflict', 'A role with this name already exists.', 'conflict');
      throw error;
    }
  };

  return {
    async list(window: PageWindow, nameFilter?: string) {
      const page = await storage.roles.list(tenantId, window, nameFilter);
      return { items: page.items.map(view), total: page.total };
    },
    async get(id: string): Promise<RoleView> {
      return view(await role(id));
    },
    async create(input: { name: string; description?: string }): Promise<RoleView> {
      const record: RoleRecord = { id: `rol_${randomId(16)}`, name: input.name, description: input.description ?? null, createdAt: at() };
      await uniqueName(() => storage.roles.insert(tenantId, record));
      return view(record);
    },
    async update(id: string, patch: { name?: string; description?: string }): Promise<RoleView> {
      const changed = await uniqueName(() => storage.roles.update(tenantId, id, patch));
      if (!changed) throw noRole();
      return view(await role(id));
    },
    async remove(id: string): Promise<void> {
      const removed = await storage.transaction(async (repos) => {
        await repos.organizations.removeRole(tenantId, id);
        return repos.roles.remove(tenantId, id);
      });
      if (!removed) throw noRole();
    },

    async permissions(id: string, window: PageWindow) {
      await role(id);
      const page = await storage.roles.permissionsOf(tenantId, id, window);
      return { items: await permissionViews(page.items), total: page.total };
    },
    async addPermissions(id: string, permissions: readonly PermissionKey[]): Promise<void> {
      await role(id);
      await storage.roles.addPermissions(tenantId, id, await checkedPermissions(permissions), at());
    },
    async removePermissions(id: string, permissions: readonly PermissionKey[]): Promise<void> {
      await role(id);
      await storage.roles.removePermissions(tenantId, id, permissions);
    },

    /** A role's users: their ids with the profile fields the platform lists (user_id, email, picture, name). */
    async users(id: string, window: PageWindow) {
      await role(id);
      const page = await storage.roles.usersOfRole(tenantId, id, window);
      const users = await Promise.all(page.items.map((userId) => storage.users.get(tenantId, userId)));
      const items = users.flatMap((user) =>
        user ? [{ user_id: user.id, ...(user.data.email !== undefined ? { email: user.data.email } : {}), ...(user.data.picture !== undefined ? { picture: user.data.picture } : {}), ...(user.data.name !== undefined ? { name: user.data.name } : {}) }] : [],
      );
      return { items, total: page.total };
    },
    async assignUsers(id: string, userIds: readonly string[]): Promise<void> {
      await role(id);
      for (const userId of new Set(userIds)) await existingUser(userId);
      await storage.roles.assign(tenantId, [...new Set(userIds)].map((userId) => ({ userId, roleId: id })), at());
    },

    async rolesOfUser(userId: string, window: PageWindow) {
      await existingUser(userId);
      const page = await storage.roles.rolesOfUser(tenantId, userId, window);
      return { items: page.items.map(view), total: page.total };
    },
    async assignRoles(userId: string, roleIds: readonly string[]): Promise<void> {
      await existingUser(userId);
      const roles = await checkedRoles(roleIds);
      await storage.roles.assign(tenantId, roles.map((found) => ({ userId, roleId: found.id })), at());
    },
    async removeRoles(userId: string, roleIds: readonly string[]): Promise<void> {
      await existingUser(userId);
      await storage.roles.unassign(tenantId, userId, roleIds);
    },

    /** Every permission the user holds, directly or through roles, with its sources; paged here (a user holds few). */
    async permissionsOfUser(userId: string, window: PageWindow) {
      await existingUser(userId);
      const all = await permissionViews(await storage.roles.permissionsOfUser(tenantId, userId));
      const items: UserPermissionView[] = all.slice(window.offset, window.offset + window.limit).map(({ sources, ...permission }) => ({
        ...permission,
        sources: sources.map((source) =>
          source.type === 'DIRECT' ? { source_id: '', source_name: '', source_type: 'DIRECT' as const } : { source_id: source.roleId, source_name: source.roleName, source_type: 'ROLE' as const },
        ),
      }));
      return { items, total: all.length };
    },
    async addUserPermissions(userId: string, permissions: readonly PermissionKey[]): Promise<void> {
      await existingUser(userId);
      await storage.roles.addUserPermissions(tenantId, userId, await checkedPermissions(permissions), at());
    },
    async removeUserPermissions(userId: string, permissions: readonly PermissionKey[]): Promise<void> {
      await existingUser(userId);
      await storage.roles.removeUserPermissions(tenantId, userId, permissions);
    },
  };
}

export type RolesService = ReturnType<typeof rolesService>;
