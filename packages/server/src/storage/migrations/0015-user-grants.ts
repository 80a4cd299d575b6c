import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * User grants (`/api/v2/grants`): the consent a user gave an application to the scopes of one API, remembered so
 * that the consent screen is not shown again. One row per user, application and API; `scope` is a JSON array.
 */
export const userGrants = {
  async up(db: AnyDb): Promise<void> {
    await db.schema
      .createTable('user_grants')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('audience', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('user_grants_pk', ['tenant_id', 'id'])
      .addUniqueConstraint('user_grants_uq', ['tenant_id', 'user_id', 'client_id', 'audience'])
      .execute();
    await db.schema.createIndex('user_grants_client_idx').on('user_grants').columns(['tenant_id', 'client_id']).execute();
    await db.schema.createIndex('user_grants_audience_idx').on('user_grants').columns(['tenant_id', 'audience']).execute();
  },
};
