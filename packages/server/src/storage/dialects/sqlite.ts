import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type SqliteDatabase } from 'kysely';
import type { Database } from '../schema.js';
import type { StorageDialect } from './dialect.js';

/** Distinct SQL texts kept prepared; a query with an `in (...)` list makes one text per list length. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every query afresh; compiling the SQL then costs about as much as running it
 * (a login makes some twenty queries, bench/). The queries are a small set of shapes with parameters, so each
 * text is prepared once and reused. SQLite re-prepares a cached statement itself if the schema changes, and
 * every statement is run to completion before the next query starts (nothing here streams), so sharing is safe.
 */
function withStatementCache(connection: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => connection.close(),
    prepare(text) {
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = connection.prepare(text);
        if (statements.size >= STATEMENT_CACHE_SIZE) {
          const oldest = statements.keys().next();
          if (!oldest.done) statements.delete(oldest.value);
        }
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

export function openSqlite(path: string): StorageDialect {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const connection = new BetterSqlite3(path);
  // WAL lets readers run beside the writer; the busy timeout makes a second process wait instead of failing.
  connection.pragma('journal_mode = WAL');
  connection.pragma('busy_timeout = 5000');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(connection) }) });

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
