import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialects/dialect.js';
import { jsonText } from '../repositories/user-search.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** Profile fields a user search compares, sorts or matches by prefix (storage/repositories/user-search.ts). */
const PROFILE_FIELDS = ['name', 'given_name', 'family_name', 'nickname', 'phone_number', 'last_login'] as const;

/**
 * User search (`GET /api/v2/users?q=`) answers from indexes: the stored columns it compares and sorts on, and an
 * expression index per profile field of the JSON document, written exactly as the search writes the expression
 * (jsonText) so that the planner matches them. On PostgreSQL the text ones use text_pattern_ops, which serves
 * `LIKE 'prefix%'` whatever the database's collation; equality is served by it too. Metadata values (arbitrary keys) are not indexed: they
 * are compared in SQL within the tenant's users.
 */
export function userSearchIndexes(dialect: DialectName) {
  return {
    async up(db: AnyDb): Promise<void> {
      const pg = dialect === 'postgres';
      const ops = pg ? ' text_pattern_ops' : '';
      await db.schema.createIndex('users_created_idx').on('users').columns(['tenant_id', 'created_at', 'user_id']).execute();
      await db.schema.createIndex('users_updated_idx').on('users').columns(['tenant_id', 'updated_at', 'user_id']).execute();
      await db.schema.createIndex('users_connection_created_idx').on('users').columns(['tenant_id', 'connection', 'created_at', 'user_id']).execute();
      await sql.raw(`create index users_username_idx on users (tenant_id, username${ops})`).execute(db);
      if (pg) await sql.raw(`create index users_email_prefix_idx on users (tenant_id, email text_pattern_ops)`).execute(db);
      for (const field of PROFILE_FIELDS) {
        await sql.raw(`create index users_${field}_idx on users (tenant_id, (${jsonText(dialect, field)})${ops})`).execute(db);
      }
      await sql.raw(`create index users_logins_idx on users (tenant_id, (${pg ? `(${jsonText(dialect, 'logins_count')})::bigint` : jsonText(dialect, 'logins_count')}))`).execute(db);
    },
  };
}
