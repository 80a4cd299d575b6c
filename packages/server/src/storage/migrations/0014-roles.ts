import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * Roles and permissions (`/api/v2/roles`, `/api/v2/users/{id}/roles`, `/api/v2/users/{id}/permissions`):
 * - `roles`: a tenant's roles, their names unique per tenant;
 * - `role_permissions`: what a role grants, an API (by identifier) and one of its scopes;
 * - `user_roles`: who holds a role (indexed both ways: a user's roles, a role's users);
 * - `user_permissions`: permissions given to a user directly.
 * Rows name users, roles and APIs by id without foreign keys: the services remove a user's, a role's or a scope's
 * rows with it, in the same transaction.
 */
export const roles = {
  async up(db: AnyDb): Promise<void> {
    await db.schema
      .createTable('roles')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('roles_pk', ['tenant_id', 'id'])
      .addUniqueConstraint('roles_name_uq', ['tenant_id', 'name'])
      .execute();
    await db.schema
      .createTable('role_permissions')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('role_id', 'text', (c) => c.notNull())
      .addColumn('resource_server_identifier', 'text', (c) => c.notNull())
      .addColumn('permission_name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('role_permissions_pk', ['tenant_id', 'role_id', 'resource_server_identifier', 'permission_name'])
      .execute();
    await db.schema.createIndex('role_permissions_api_idx').on('role_permissions').columns(['tenant_id', 'resource_server_identifier', 'permission_name']).execute();
    await db.schema
      .createTable('user_roles')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('role_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('user_roles_pk', ['tenant_id', 'user_id', 'role_id'])
      .execute();
    await db.schema.createIndex('user_roles_role_idx').on('user_roles').columns(['tenant_id', 'role_id', 'user_id']).execute();
    await db.schema
      .createTable('user_permissions')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('resource_server_identifier', 'text', (c) => c.notNull())
      .addColumn('permission_name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('user_permissions_pk', ['tenant_id', 'user_id', 'resource_server_identifier', 'permission_name'])
      .execute();
    await db.schema.createIndex('user_permissions_api_idx').on('user_permissions').columns(['tenant_id', 'resource_server_identifier', 'permission_name']).execute();
  },
};
