import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DatabaseConfig } from '../../src/config/load.js';
import { randomId } from '../../src/crypto/random.js';
import { openStorage } from '../../src/storage/open.js';
import { createStorage, type Storage } from '../../src/storage/storage.js';
import { POSTGRES_URL, type DialectKind } from './services.js';

/** A database of its own for one suite, below the HTTP layer: a temporary SQLite file or a fresh PostgreSQL schema. */
export interface TestDatabase {
  config: DatabaseConfig;
  /** A new connection (pool) to the database, as each server process has; migrates unless told not to. */
  open(options?: { migrate?: boolean }): Promise<Storage>;
  /** Deletes the file or drops the schema. */
  cleanup(): Promise<void>;
}

export function testDatabase(dialect: DialectKind): TestDatabase {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'latchkey-db-'));
    const config: DatabaseConfig = { kind: 'sqlite', path: join(dir, 'test.db') };
    return {
      config,
      open: async (options = {}) => createStorage(await openStorage(config, options)),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `db_${randomId(12).toLowerCase()}`;
  const config: DatabaseConfig = { kind: 'postgres', url: POSTGRES_URL };
  return {
    config,
    open: async (options = {}) => createStorage(await openStorage(config, { schema, ...options })),
    cleanup: () => dropSchema(schema),
  };
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}
