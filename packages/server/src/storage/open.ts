import type { DatabaseConfig } from '../config/load.js';
import type { StorageDialect } from './dialects/dialect.js';
import { openPostgres } from './dialects/postgres.js';
import { openSqlite } from './dialects/sqlite.js';
import { migrateToLatest } from './migrations/index.js';

export interface OpenOptions {
  /** PostgreSQL only: the schema to work in. */
  schema?: string;
  /** Run pending migrations (default true). */
  migrate?: boolean;
  /** PostgreSQL only: told when a pooled connection breaks (the pool replaces it on demand). */
  onConnectionLost?: (error: Error) => void;
}

export async function openStorage(config: DatabaseConfig, options: OpenOptions = {}): Promise<StorageDialect> {
  const dialect =
    config.kind === 'sqlite'
      ? openSqlite(config.path)
      : await openPostgres({
          url: config.url,
          ...(options.schema !== undefined ? { schema: options.schema } : {}),
          ...(options.onConnectionLost ? { onConnectionLost: options.onConnectionLost } : {}),
        });
  if (options.migrate ?? true) await runMigrations(dialect);
  return dialect;
}

const RACE_CODES = new Set(['23505', '42P07']);

/**
 * Applies pending migrations; safe when several nodes start at once on one database.
 * - SQLite: Kysely's migrator takes no lock there (it assumes a single connection), so two processes on one file
 *   would both apply a migration and the loser fail with "table ... already exists". The whole run happens under
 *   the file's write lock instead, which also makes each run all-or-nothing.
 * - PostgreSQL: the migrator serialises migrations with an advisory lock, but two nodes can still race creating
 *   its bookkeeping tables; the loser sees a duplicate and simply tries again.
 */
export async function runMigrations(dialect: StorageDialect) {
  if (dialect.name === 'sqlite') return dialect.exclusive('latchkey:migrations', (db) => migrateToLatest(db, dialect.name));
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await migrateToLatest(dialect.db, dialect.name);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= 3 || code === undefined || !RACE_CODES.has(code)) throw error;
    }
  }
}
