import type { Kysely } from 'kysely';
import type { DialectName } from '../dialects/dialect.js';

// Migrations take `any` because they describe the schema as it was when written, not today's types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export function initial(dialect: DialectName) {
  return {
    async up(db: AnyDb): Promise<void> {
      await db.schema
        .createTable('tenants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('settings', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('signing_keys')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('kid', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('public_jwk', 'text', (c) => c.notNull())
        .addColumn('private_key_sealed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('current_since', 'text')
        .addColumn('current_until', 'text')
        .addColumn('revoked_at', 'text')
        .addPrimaryKeyConstraint('signing_keys_pk', ['tenant_id', 'kid'])
        .execute();

      await db.schema
        .createTable('clients')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text')
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('clients_pk', ['tenant_id', 'client_id'])
        .execute();

      await db.schema
        .createTable('resource_servers')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('identifier', 'text', (c) => c.notNull())
        .addColumn('is_system', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('resource_servers_pk', ['tenant_id', 'id'])
        .addUniqueConstraint('resource_servers_identifier_uq', ['tenant_id', 'identifier'])
        .execute();

      await db.schema
        .createTable('client_grants')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('audience', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('client_grants_pk', ['tenant_id', 'id'])
        .addUniqueConstraint('client_grants_client_audience_uq', ['tenant_id', 'client_id', 'audience'])
        .execute();

      await db.schema
        .createTable('connections')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('strategy', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('connections_pk', ['tenant_id', 'id'])
        .addUniqueConstraint('connections_name_uq', ['tenant_id', 'name'])
        .execute();

      await db.schema
        .createTable('users')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('connection', 'text', (c) => c.notNull())
        .addColumn('email', 'text')
        .addColumn('username', 'text')
        .addColumn('password_hash', 'text')
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('users_pk', ['tenant_id', 'user_id'])
        .addUniqueConstraint('users_connection_email_uq', ['tenant_id', 'connection', 'email'])
        .addUniqueConstraint('users_connection_username_uq', ['tenant_id', 'connection', 'username'])
        .execute();
      await db.schema.createIndex('users_email_idx').on('users').columns(['tenant_id', 'email']).execute();

      // The sequence column is the one dialect difference in the schema: each has its own auto-increment.
      await db.schema
        .createTable('rendering_configs')
        .addColumn('seq', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('prompt', 'text', (c) => c.notNull())
        .addColumn('screen', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addUniqueConstraint('rendering_configs_screen_uq', ['tenant_id', 'prompt', 'screen'])
        .execute();
    },
  };
}
