import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * The tenant log (`/api/v2/logs`): one row per event, the whole event as JSON in `data`, and as columns the fields
 * the log is searched by. `log_id` is fixed-width decimal text from a per-tenant counter (`log_event_counters`),
 * assigned in the transaction that inserts the event, so that text order is insertion order and commit order
 * (repositories/log-events.ts). Rows go when `expires_at` passes (LATCHKEY_LOG_RETENTION_DAYS).
 */
export const logEvents = {
  async up(db: AnyDb): Promise<void> {
    await db.schema
      .createTable('log_event_counters')
      .addColumn('tenant_id', 'text', (c) => c.notNull().primaryKey().references('tenants.id'))
      .addColumn('last', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('log_events')
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('log_id', 'text', (c) => c.notNull())
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text')
      .addColumn('client_id', 'text')
      .addColumn('connection', 'text')
      .addColumn('ip', 'text')
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      // The (tenant, log_id) index: the log in order, and checkpoint paging.
      .addPrimaryKeyConstraint('log_events_pk', ['tenant_id', 'log_id'])
      .execute();
    // A user's logs, and a type filter (stats count logins and signups by type), each in log order.
    await db.schema.createIndex('log_events_user_idx').on('log_events').columns(['tenant_id', 'user_id', 'log_id']).execute();
    await db.schema.createIndex('log_events_type_idx').on('log_events').columns(['tenant_id', 'type', 'log_id']).execute();
    // Date ranges (`q=date:[a TO b]`, daily stats).
    await db.schema.createIndex('log_events_date_idx').on('log_events').columns(['tenant_id', 'date']).execute();
    // The sweep of expired events, across tenants.
    await db.schema.createIndex('log_events_expiry_idx').on('log_events').columns(['expires_at']).execute();
  },
};
