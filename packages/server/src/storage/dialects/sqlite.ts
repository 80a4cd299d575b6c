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

  // BEGIN IMMEDIATE takes the write lock up front. A deferred transaction that reads and then writes fails at once
  // with SQLITE_BUSY_SNAPSHOT when another process committed in between (the busy timeout does not apply to
  // that case); taking the lock first makes other processes wait their turn instead. In one process the single
  // connection already serialises everything, so this costs nothing there.
  function immediate<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
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
  }

  return {
    name: 'sqlite',
    db,
    transaction: immediate,
    // One write lock for the whole file: every exclusive section is serialised, whatever its name.
    exclusive: (_lockName, work) => immediate(work),
    isUniqueViolation(error) {
      const code = (error as { code?: unknown } | null)?.code;
      return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
    },
    async close() {
      await db.destroy();
    },
  };
}
