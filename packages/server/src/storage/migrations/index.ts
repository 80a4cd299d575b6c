import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely';
import type { DialectName } from '../dialects/dialect.js';
import { initial } from './0001-initial.js';
import { artifacts } from './0002-artifacts.js';

/** Every migration, in order. Names are fixed once released: they are the keys in the migration table. */
function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '0001-initial': initial(dialect),
    '0002-artifacts': artifacts,
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function migrateToLatest(db: Kysely<any>, dialect: DialectName): Promise<MigrationResultSet> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one: with several schemas in one
  // database (tests, or tenants of a shared server) it must be the one this connection works in.
  const schema =
    dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(dialect) },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}
