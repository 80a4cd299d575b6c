import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { PageOf, PageWindow } from './page.js';

export interface RoleRecord {
  id: string;
  name: string;
  description: string | null;
  createdAt: string;
}

/** A permission: one scope of one API, the API named by its identifier. */
export interface PermissionKey {
  resource_server_identifier: string;
  permission_name: string;
}

/** Where a user holds a permission from: directly, or through a role. */
export type PermissionSource = { type: 'DIRECT' } | { type: 'ROLE'; roleId: string; roleName: string };

const toRole = (row: { id: string; name: string; description: string | null; created_at: string }): RoleRecord => ({
  id: row.id,
  name: row.name,
  description: row.description,
  createdAt: row.created_at,
});

/**
 * Roles, what they grant, who holds them, and permissions given to users directly (0014-roles). Assigning what is
 * already assigned changes nothing; lists are ordered by name (roles), by API and permission (permissions) and by
 * user id (a role's users), so that pages are stable.
 */
export function rolesRepository(db: Kysely<Database>) {
  // Permissions held by a role and permissions held by a user directly are kept alike, in a table each.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const untyped = db as unknown as Kysely<any>;
  const HOLDERS = { role: { table: 'role_permissions', owner: 'role_id' }, user: { table: 'user_permissions', owner: 'user_id' } } as const;

  async function grant(holder: keyof typeof HOLDERS, tenantId: string, ownerId: string, permissions: readonly PermissionKey[], at: string): Promise<void> {
    if (permissions.length === 0) return;
    const { table, owner } = HOLDERS[holder];
    await untyped
      .insertInto(table)
      .values(permissions.map((permission) => ({ tenant_id: tenantId, [owner]: ownerId, resource_server_identifier: permission.resource_server_identifier, permission_name: permission.permission_name, created_at: at })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async function revoke(holder: keyof typeof HOLDERS, tenantId: string, ownerId: string, permissions: readonly PermissionKey[]): Promise<void> {
    const { table, owner } = HOLDERS[holder];
    for (const permission of permissions) {
      await untyped
        .deleteFrom(table)
        .where('tenant_id', '=', tenantId)
        .where(owner, '=', ownerId)
        .where('resource_server_identifier', '=', permission.resource_server_identifier)
        .where('permission_name', '=', permission.permission_name)
        .execute();
    }
  }

  return {
    async insert(tenantId: string, role: RoleRecord): Promise<void> {
      await db.insertInto('roles').values({ tenant_id: tenantId, id: role.id, name: role.name, description: role.description, created_at: role.createdAt }).execute();
    },

    async get(tenantId: string, id: string): Promise<RoleRecord | undefined> {
      const row = await db.selectFrom('roles').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return row && toRole(row);
    },

    /** The roles of these ids that exist, in no particular order. */
    async getMany(tenantId: string, ids: readonly string[]): Promise<RoleRecord[]> {
      if (ids.length === 0) return [];
      const rows = await db.selectFrom('roles').selectAll().where('tenant_id', '=', tenantId).where('id', 'in', ids).execute();
      return rows.map(toRole);
    },

    /** Roles by name; `nameFilter`: only names containing it, whatever the case. */
    async list(tenantId: string, window: PageWindow, nameFilter?: string): Promise<PageOf<RoleRecord>> {
      let query = db.selectFrom('roles').where('tenant_id', '=', tenantId);
      if (nameFilter !== undefined && nameFilter !== '') {
        const pattern = `%${nameFilter.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        query = query.where(sql<boolean>`lower(name) like ${pattern} escape '\\'`);
      }
      const [rows, total] = await Promise.all([
        query.selectAll().orderBy('name').orderBy('id').offset(window.offset).limit(window.limit).execute(),
        query.select(db.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toRole), total: Number(total.n) };
    },

    async update(tenantId: string, id: string, changes: { name?: string; description?: string }): Promise<boolean> {
      if (Object.keys(changes).length === 0) return (await this.get(tenantId, id)) !== undefined;
      const result = await db.updateTable('roles').set(changes).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Deletes a role with what it grants and its assignments; false when there was no such role. */
    async remove(tenantId: string, id: string): Promise<boolean> {
      await db.deleteFrom('role_permissions').where('tenant_id', '=', tenantId).where('role_id', '=', id).execute();
      await db.deleteFrom('user_roles').where('tenant_id', '=', tenantId).where('role_id', '=', id).execute();
      const result = await db.deleteFrom('roles').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    addPermissions: (tenantId: string, roleId: string, permissions: readonly PermissionKey[], at: string) => grant('role', tenantId, roleId, permissions, at),
    removePermissions: (tenantId: string, roleId: string, permissions: readonly PermissionKey[]) => revoke('role', tenantId, roleId, permissions),

    async permissionsOf(tenantId: string, roleId: string, window: PageWindow): Promise<PageOf<PermissionKey>> {
      const query = db.selectFrom('role_permissions').where('tenant_id', '=', tenantId).where('role_id', '=', roleId);
      const [rows, total] = await Promise.all([
        query.select(['resource_server_identifier', 'permission_name']).orderBy('resource_server_identifier').orderBy('permission_name').offset(window.offset).limit(window.limit).execute(),
        query.select(db.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows, total: Number(total.n) };
    },

    /** Gives roles to users (each pair once; pairs held already are left as they are). */
    async assign(tenantId: string, pairs: readonly { userId: string; roleId: string }[], at: string): Promise<void> {
      if (pairs.length === 0) return;
      await db
        .insertInto('user_roles')
        .values(pairs.map((pair) => ({ tenant_id: tenantId, user_id: pair.userId, role_id: pair.roleId, created_at: at })))
        .onConflict((oc) => oc.doNothing())
        .execute();
    },

    async unassign(tenantId: string, userId: string, roleIds: readonly string[]): Promise<void> {
      if (roleIds.length === 0) return;
      await db.deleteFrom('user_roles').where('tenant_id', '=', tenantId).where('user_id', '=', userId).where('role_id', 'in', roleIds).execute();
    },

    async rolesOfUser(tenantId: string, userId: string, window: PageWindow): Promise<PageOf<RoleRecord>> {
      const query = db.selectFrom('user_roles as ur').innerJoin('roles as r', (join) => join.onRef('r.tenant_id', '=', 'ur.tenant_id').onRef('r.id', '=', 'ur.role_id')).where('ur.tenant_id', '=', tenantId).where('ur.user_id', '=', userId);
      const [rows, total] = await Promise.all([
        query.select(['r.id', 'r.name', 'r.description', 'r.created_at']).orderBy('r.name').orderBy('r.id').offset(window.offset).limit(window.limit).execute(),
        query.select(db.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toRole), total: Number(total.n) };
    },

    /** The ids of a role's users, in id order. */
    async usersOfRole(tenantId: string, roleId: string, window: PageWindow): Promise<PageOf<string>> {
      const query = db.selectFrom('user_roles').where('tenant_id', '=', tenantId).where('role_id', '=', roleId);
      const [rows, total] = await Promise.all([
        query.select('user_id').orderBy('user_id').offset(window.offset).limit(window.limit).execute(),
        query.select(db.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map((row) => row.user_id), total: Number(total.n) };
    },

    addUserPermissions: (tenantId: string, userId: string, permissions: readonly PermissionKey[], at: string) => grant('user', tenantId, userId, permissions, at),
    removeUserPermissions: (tenantId: string, userId: string, permissions: readonly PermissionKey[]) => revoke('user', tenantId, userId, permissions),

    /** Every permission a user holds, directly or through roles, each with where it comes from. */
    async permissionsOfUser(tenantId: string, userId: string): Promise<(PermissionKey & { sources: PermissionSource[] })[]> {
      const direct = db.selectFrom('user_permissions').select(['resource_server_identifier', 'permission_name']).where('tenant_id', '=', tenantId).where('user_id', '=', userId);
      const viaRoles = db
        .selectFrom('user_roles as ur')
        .innerJoin('role_permissions as rp', (join) => join.onRef('rp.tenant_id', '=', 'ur.tenant_id').onRef('rp.role_id', '=', 'ur.role_id'))
        .innerJoin('roles as r', (join) => join.onRef('r.tenant_id', '=', 'ur.tenant_id').onRef('r.id', '=', 'ur.role_id'))
        .select(['rp.resource_server_identifier', 'rp.permission_name', 'r.id as role_id', 'r.name as role_name'])
        .where('ur.tenant_id', '=', tenantId)
        .where('ur.user_id', '=', userId);
      const [directRows, roleRows] = await Promise.all([direct.execute(), viaRoles.execute()]);
      const byKey = new Map<string, PermissionKey & { sources: PermissionSource[] }>();
      const entry = (key: PermissionKey) => {
        const id = `${key.resource_server_identifier}\n${key.permission_name}`;
        let found = byKey.get(id);
        if (!found) {
          found = { resource_server_identifier: key.resource_server_identifier, permission_name: key.permission_name, sources: [] };
          byKey.set(id, found);
        }
        return found;
      };
      for (const row of directRows) entry(row).sources.push({ type: 'DIRECT' });
      for (const row of roleRows) entry(row).sources.push({ type: 'ROLE', roleId: row.role_id, roleName: row.role_name });
      return [...byKey.values()].sort((a, b) =>
        a.resource_server_identifier === b.resource_server_identifier ? (a.permission_name < b.permission_name ? -1 : 1) : a.resource_server_identifier < b.resource_server_identifier ? -1 : 1,
      );
    },

    /**
     * The names of the permissions a user holds for one API, directly or through roles: what a token for that API
     * may carry (issued at every login and refresh, so one statement and nothing else).
     */
    async permissionNamesOfUser(tenantId: string, userId: string, audience: string): Promise<string[]> {
      const { rows } = await sql<{ permission_name: string }>`
        select permission_name from user_permissions where tenant_id = ${tenantId} and user_id = ${userId} and resource_server_identifier = ${audience}
        union
        select rp.permission_name from user_roles ur join role_permissions rp on rp.tenant_id = ur.tenant_id and rp.role_id = ur.role_id
        where ur.tenant_id = ${tenantId} and ur.user_id = ${userId} and rp.resource_server_identifier = ${audience}`.execute(db);
      // Sorted here rather than in SQL: the same order on both dialects, whatever the database's collation.
      return rows.map((row) => row.permission_name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    },

    /** The names of a user's roles, sorted (what a post-login Action reads as `event.authorization.roles`). */
    async roleNamesOfUser(tenantId: string, userId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('user_roles as ur')
        .innerJoin('roles as r', (join) => join.onRef('r.tenant_id', '=', 'ur.tenant_id').onRef('r.id', '=', 'ur.role_id'))
        .select('r.name')
        .where('ur.tenant_id', '=', tenantId)
        .where('ur.user_id', '=', userId)
        .execute();
      return rows.map((row) => row.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    },

    /** A deleted user's roles and direct permissions. */
    async removeUser(tenantId: string, userId: string): Promise<void> {
      await db.deleteFrom('user_roles').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
      await db.deleteFrom('user_permissions').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
    },

    /** Permissions of an API that no longer exist: all of the API's (`keep` undefined), or those not in `keep`. */
    async removePermissionsOfApi(tenantId: string, identifier: string, keep?: readonly string[]): Promise<void> {
      for (const table of ['role_permissions', 'user_permissions'] as const) {
        let query = db.deleteFrom(table).where('tenant_id', '=', tenantId).where('resource_server_identifier', '=', identifier);
        if (keep !== undefined && keep.length > 0) query = query.where('permission_name', 'not in', keep);
        await query.execute();
      }
    },
  };
}

export type RolesRepository = ReturnType<typeof rolesRepository>;
