import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type CompiledQuery, type QueryResult, type SqliteDatabase } from 'kysely';
import { registerDirectExecution } from '../direct-execution.js';
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
function withStatementCache(connection: BetterSqlite3.Database): SqliteDatabase & { prepare(sql: string): BetterSqlite3.Statement } {
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

/**
 * A compiled query run straight on the connection, answered as Kysely's SQLite driver answers it. better-sqlite3
 * runs a statement synchronously, so outside a transaction nothing else can be using the connection meanwhile.
 */
function runNow(database: { prepare(sql: string): BetterSqlite3.Statement }, query: CompiledQuery): QueryResult<unknown> {
  const statement = database.prepare(query.sql);
  if (statement.reader) return { rows: statement.all(query.parameters) };
  const { changes, lastInsertRowid } = statement.run(query.parameters);
  return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
}

export function openSqlite(path: string): StorageDialect {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const connection = new BetterSqlite3(path);
  // WAL lets readers run beside the writer; the busy timeout makes a second process wait instead of failing.
  connection.pragma('journal_mode = WAL');
  connection.pragma('busy_timeout = 5000');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  const cached = withStatementCache(connection);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cached }) });
  // Transactions begun and not yet ended (waiting for the connection counts): while one is, the connection belongs to
  // it, and a statement run straight on it would become part of that transaction.
  let transactions = 0;
  registerDirectExecution(db, (query) => (transactions === 0 ? runNow(cached, query) : undefined));

  // BEGIN IMMEDIATE takes the write lock up front. A deferred transaction that reads and then writes fails at once
  // with SQLITE_BUSY_SNAPSHOT when another process committed in between (the busy timeout does not apply to
  // that case); taking the lock first makes other processes wait their turn instead. In one process the single
  // connection already serialises everything, so this costs nothing there.
  function immediate<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    transactions += 1;
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
    }).finally(() => {
      transactions -= 1;
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
