import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Database } from '../schema.js';
import type { StorageDialect } from './dialect.js';

export function openSqlite(path: string): StorageDialect {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const connection = new BetterSqlite3(path);
  // WAL lets readers run beside the writer; the busy timeout makes a second process wait instead of failing.
  connection.pragma('journal_mode = WAL');
  connection.pragma('busy_timeout = 5000');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });

  return {
    name: 'sqlite',
    db,
    async exclusive(_lockName, work) {
      // BEGIN IMMEDIATE takes the write lock up front, so two processes never deadlock upgrading a read lock.
      return db.connection().execute(async (conn) => {
        await sql`begin immediate`.execute(conn);
        try {
          const result = await work(conn);
          await sql`commit`.execute(conn);
          return result;
        } catch (error) {
          await sql`rollback`.execute(conn);
          throw error;
        }
      });
    },
    isUniqueViolation(error) {
      const code = (error as { code?: unknown } | null)?.code;
      return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
    },
    async close() {
      await db.destroy();
    },
  };
}
