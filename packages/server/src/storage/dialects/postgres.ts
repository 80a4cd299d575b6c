import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../schema.js';
import type { StorageDialect } from './dialect.js';

export interface PostgresOptions {
  url: string;
  /** Schema to use as the search path (tests isolate suites this way); created when missing. */
  schema?: string;
  maxConnections?: number;
}

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
    const setup = new pg.Client({ connectionString: options.url });
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
    ...(options.schema !== undefined ? { options: `-c search_path=${options.schema}` } : {}),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });

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
    async close() {
      await db.destroy();
    },
  };
}
