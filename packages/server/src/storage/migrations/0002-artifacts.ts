import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * Short-lived protocol state in one table: SSO sessions, login transactions, authorization codes, refresh
 * tokens, client-assertion ids, and later tickets and one-time codes. Each row is found by the hash of its
 * secret handle (`id`), grouped by `family` (the grant that codes and refresh tokens share, a session's public
 * `sid`) and by `subject` (the user), and expires.
 */
export const artifacts = {
  async up(db: AnyDb): Promise<void> {
    await db.schema
      .createTable('artifacts')
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('family', 'text')
      .addColumn('subject', 'text')
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('consumed_at', 'text')
      .addPrimaryKeyConstraint('artifacts_pk', ['tenant_id', 'kind', 'id'])
      .execute();
    await db.schema.createIndex('artifacts_family_idx').on('artifacts').columns(['tenant_id', 'family']).execute();
    await db.schema.createIndex('artifacts_subject_idx').on('artifacts').columns(['tenant_id', 'subject']).execute();
    await db.schema.createIndex('artifacts_expiry_idx').on('artifacts').columns(['expires_at']).execute();
  },
};
