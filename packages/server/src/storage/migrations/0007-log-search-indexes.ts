import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * The tenant log's search (`GET /api/v2/logs?q=`) answers only on indexed columns, so that no query the API
 * accepts can make the database read the whole log. 0006-log-events indexes the user, the type and the date; this
 * adds the other fields `q` may name (the application, the connection and the address), each followed by log_id so
 * that the newest (or oldest) matches come straight off the index in the order the log is read.
 */
export const logSearchIndexes = {
  async up(db: AnyDb): Promise<void> {
    await db.schema.createIndex('log_events_client_idx').on('log_events').columns(['tenant_id', 'client_id', 'log_id']).execute();
    await db.schema.createIndex('log_events_connection_idx').on('log_events').columns(['tenant_id', 'connection', 'log_id']).execute();
    await db.schema.createIndex('log_events_ip_idx').on('log_events').columns(['tenant_id', 'ip', 'log_id']).execute();
  },
};
