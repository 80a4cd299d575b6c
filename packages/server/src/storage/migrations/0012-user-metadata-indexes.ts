import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialects/dialect.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * A user search by a metadata value (`user_metadata.customer:"c42"`) is served by an index on PostgreSQL: a GIN
 * index (jsonb_path_ops) per metadata object, which the search's containment test (`@>`, user-search.ts) uses
 * whatever the key. SQLite has no index over arbitrary keys; there such a search reads the tenant's users.
 */
export function userMetadataIndexes(dialect: DialectName) {
  return {
    async up(db: AnyDb): Promise<void> {
      if (dialect !== 'postgres') return;
      for (const field of ['app_metadata', 'user_metadata']) {
        await sql.raw(`create index users_${field}_idx on users using gin (((data::jsonb) -> '${field}') jsonb_path_ops)`).execute(db);
      }
    },
  };
}
