import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * Organizations (`/api/v2/organizations`), business customers whose users log in to them:
 * - `organizations`: name unique per tenant; `branding` and `metadata` are JSON objects;
 * - `organization_members` and `organization_member_roles`: who belongs, and their roles there (indexed by user too,
 *   for `/users/{id}/organizations` and the login's membership check);
 * - `organization_connections`: the connections members log in with, and how;
 * - `organization_invitations`: who was invited, until when; `ticket_hash` is the hash of the link's ticket (the
 *   ticket itself is derived from the deployment secret, never stored).
 * Rows name users, roles and connections by id without foreign keys: the services remove them with their owner.
 */
export const organizations = {
  async up(db: AnyDb): Promise<void> {
    await db.schema
      .createTable('organizations')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text')
      .addColumn('branding', 'text')
      .addColumn('metadata', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('organizations_pk', ['tenant_id', 'id'])
      .addUniqueConstraint('organizations_name_uq', ['tenant_id', 'name'])
      .execute();
    await db.schema
      .createTable('organization_members')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('organization_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('organization_members_pk', ['tenant_id', 'organization_id', 'user_id'])
      .execute();
    await db.schema.createIndex('organization_members_user_idx').on('organization_members').columns(['tenant_id', 'user_id']).execute();
    await db.schema
      .createTable('organization_member_roles')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('organization_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('role_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('organization_member_roles_pk', ['tenant_id', 'organization_id', 'user_id', 'role_id'])
      .execute();
    await db.schema.createIndex('organization_member_roles_role_idx').on('organization_member_roles').columns(['tenant_id', 'role_id']).execute();
    await db.schema
      .createTable('organization_connections')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('organization_id', 'text', (c) => c.notNull())
      .addColumn('connection_id', 'text', (c) => c.notNull())
      .addColumn('assign_membership_on_login', 'integer', (c) => c.notNull())
      .addColumn('show_as_button', 'integer', (c) => c.notNull())
      .addColumn('is_signup_enabled', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('organization_connections_pk', ['tenant_id', 'organization_id', 'connection_id'])
      .execute();
    await db.schema.createIndex('organization_connections_connection_idx').on('organization_connections').columns(['tenant_id', 'connection_id']).execute();
    await db.schema
      .createTable('organization_invitations')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('organization_id', 'text', (c) => c.notNull())
      .addColumn('ticket_hash', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('organization_invitations_pk', ['tenant_id', 'id'])
      .addUniqueConstraint('organization_invitations_ticket_uq', ['tenant_id', 'ticket_hash'])
      .execute();
    await db.schema.createIndex('organization_invitations_org_idx').on('organization_invitations').columns(['tenant_id', 'organization_id', 'created_at']).execute();
  },
};
