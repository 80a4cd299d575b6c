import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * Log streams (`/api/v2/log-streams`) and their delivery (services/log-streams/delivery.ts). One row per stream:
 * its settings as JSON in `data` (credentials sealed), and as columns what the delivery reads and writes apart from
 * the settings, so that a Management API update and a delivery write never overwrite each other's fields:
 * - `status` (`active`, `paused`, `suspended`) and `status_reason` (why it was suspended);
 * - `position`: the log_id of the last event the sink acknowledged (2xx); delivery resumes after it, on any node,
 *   after any restart;
 * - `failing_since` and `last_error`: the current run of failed deliveries, which suspends the stream when it lasts;
 * - `lease_owner` and `lease_expires_at`: the node that delivers the stream now, and until when (one node at a time).
 */
export const logStreams = {
  async up(db: AnyDb): Promise<void> {
    await db.schema
      .createTable('log_streams')
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('status_reason', 'text')
      .addColumn('position', 'text')
      .addColumn('failing_since', 'text')
      .addColumn('last_error', 'text')
      .addColumn('lease_owner', 'text')
      .addColumn('lease_expires_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('log_streams_pk', ['tenant_id', 'id'])
      .execute();
  },
};
