import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export type DialectName = 'sqlite' | 'postgres';

/** What differs between the two databases; everything else is one Kysely query layer. */
export interface StorageDialect {
  readonly name: DialectName;
  readonly db: Kysely<Database>;
  /** Runs `work` in a transaction: all of it commits, or nothing does. */
  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /**
   * Runs `work` in a transaction that holds a named, database-wide exclusive lock, so that several server
   * processes sharing one database serialise it (bootstrap, key rotation, migrations).
   */
  exclusive<T>(lockName: string, work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /** True when the error is a unique-constraint violation. */
  isUniqueViolation(error: unknown): boolean;
  /**
   * PostgreSQL: the connection pool now (connections open, of them idle, and queries waiting for one), read by
   * the metrics on each scrape. SQLite has one connection and no pool.
   */
  poolUse?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}
