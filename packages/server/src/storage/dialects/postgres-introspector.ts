import { PostgresDialect, sql, type DatabaseIntrospector, type DatabaseMetadata, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely';

/**
 * Kysely's migrator asks the introspector whether its bookkeeping tables exist. The stock PostgreSQL introspector
 * reads every column of every table in every schema of the database: slow where many schemas share a database, and
 * it fails with "schema ... does not exist" when another process drops a schema while it reads. This one looks in
 * the connection's own schema only, and only at table names, which is all the migrator needs.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(this.db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; is_view: boolean }>`
      select c.relname as name, ns.nspname as schema, c.relkind = 'v' as is_view
      from pg_catalog.pg_class c join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')`.execute(this.db);
    return rows.map((row) => ({ name: row.name, schema: row.schema, isView: row.is_view, columns: [] }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

/** PostgreSQL as Kysely has it, with the introspector above. */
export class SchemaScopedPostgresDialect extends PostgresDialect {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}
