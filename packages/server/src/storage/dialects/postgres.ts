import { Kysely, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../schema.js';
import type { StorageDialect } from './dialect.js';
import { SchemaScopedPostgresDialect } from './postgres-introspector.js';

export interface PostgresOptions {
  url: string;
  /** Schema to use as the search path (tests isolate suites this way); created when missing. */
  schema?: string;
  maxConnections?: number;
  /** Told when a connection breaks outside a query (a restart, a failover, a terminated backend). */
  onConnectionLost?: (error: Error) => void;
}

/**
 * How long to wait for a connection, new or from the pool. A database that is down answers a connection attempt
 * at once (refused); one that is unreachable would otherwise hold each request for the operating system's TCP
 * timeout, minutes. A request that needs the database then fails within this time and is answered 503.
 */
export const CONNECT_TIMEOUT_MS = 5000;

/** TCP keepalive probes find a connection whose peer vanished without closing it (a failover, a dropped route). */
const KEEPALIVE_DELAY_MS = 10_000;

/** A stable 32-bit key for pg_advisory_xact_lock, derived from the lock's name. */
function lockKey(name: string): number {
  let hash = 0;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

export async function openPostgres(options: PostgresOptions): Promise<StorageDialect> {
  if (options.schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(options.schema)) {
    throw new Error(`invalid schema name ${options.schema}`);
  }
  if (options.schema !== undefined) {
    const setup = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    await setup.connect();
    try {
      await setup.query(`create schema if not exists ${options.schema}`);
    } catch (error) {
      // Two processes creating the same schema at once: the loser sees a duplicate; the schema exists.
      if ((error as { code?: string }).code !== '23505') throw error;
    } finally {
      await setup.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    // Names the connections in pg_stat_activity; an application_name in DATABASE_URL takes precedence.
    application_name: 'latchkey',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    ...(options.schema !== undefined ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // A connection that breaks while no query runs on it (idle in the pool, or checked out between the statements
  // of a transaction) emits 'error'; unheard, that event ends the process. The pool listens to idle connections
  // only, so each connection gets a listener of its own, and the pool's re-emission of an idle connection's error
  // is heard without being reported twice. The pool drops a broken connection and opens a new one on demand; a
  // query that was running on it fails by itself and is answered 503 (storage/unavailable.ts).
  pool.on('connect', (client) => client.on('error', (error) => options.onConnectionLost?.(error)));
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new SchemaScopedPostgresDialect({ pool }) });

  return {
    name: 'postgres',
    db,
    transaction: (work) => db.transaction().execute(work),
    async exclusive(lockName, work) {
      return db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${lockKey(lockName)})`.execute(trx);
        return work(trx);
      });
    },
    isUniqueViolation(error) {
      return (error as { code?: unknown } | null)?.code === '23505';
    },
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      await db.destroy();
    },
  };
}
