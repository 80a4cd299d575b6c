import type { Kysely, Selectable } from 'kysely';
import type { Database, LogStreamsTable } from '../schema.js';
import { fromJson, toJson } from './json.js';

export type LogStreamStatus = 'active' | 'paused' | 'suspended';

/** A stream as stored: its settings (`data`, the service's shape) and its delivery state. */
export interface LogStreamRecord<D> {
  id: string;
  data: D;
  status: LogStreamStatus;
  /** Why the stream was suspended (null otherwise). */
  statusReason: string | null;
  /** The log_id of the last event the sink acknowledged; delivery resumes after it. */
  position: string | null;
  /** When the current run of failed deliveries began (null while deliveries succeed). */
  failingSince: string | null;
  lastError: string | null;
  /** The node delivering the stream, and until when its lease holds (ISO 8601). */
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  createdAt: string;
}

/** What an update through the Management API may change; the delivery state is the worker's. */
export interface LogStreamChange<D> {
  data?: D;
  status?: LogStreamStatus;
  /** Also forget the failures and the suspension reason (a stream set active again starts afresh, at its position). */
  resume?: boolean;
}

const toRecord = <D>(row: Selectable<LogStreamsTable>): LogStreamRecord<D> => ({
  id: row.id,
  data: fromJson<D>(row.data),
  status: row.status as LogStreamStatus,
  statusReason: row.status_reason,
  position: row.position,
  failingSince: row.failing_since,
  lastError: row.last_error,
  leaseOwner: row.lease_owner,
  leaseExpiresAt: row.lease_expires_at,
  createdAt: row.created_at,
});

/**
 * Streams and their delivery state. The lease methods are conditional updates, each one statement: on PostgreSQL
 * the row lock makes a second claimer wait and then re-check its condition (which then fails), on SQLite writes
 * are serialised by the file's lock; so at most one node holds a stream's lease, and only the holder moves its
 * position (`advance` names the owner: a node whose lease was taken over cannot move it back or forth).
 * Times are ISO 8601 text from `Date.toISOString()`, which sorts as it compares.
 */
export function logStreamsRepository(db: Kysely<Database>) {
  const one = (tenantId: string, id: string) => db.updateTable('log_streams').where('tenant_id', '=', tenantId).where('id', '=', id);
  const held = (tenantId: string, id: string, owner: string) => one(tenantId, id).where('lease_owner', '=', owner);
  const changed = (result: { numUpdatedRows: bigint }) => result.numUpdatedRows > 0n;

  return {
    async insert<D>(tenantId: string, stream: { id: string; data: D; status: LogStreamStatus; position: string | null; createdAt: string }): Promise<void> {
      await db
        .insertInto('log_streams')
        .values({
          tenant_id: tenantId,
          id: stream.id,
          data: toJson(stream.data),
          status: stream.status,
          status_reason: null,
          position: stream.position,
          failing_since: null,
          last_error: null,
          lease_owner: null,
          lease_expires_at: null,
          created_at: stream.createdAt,
        })
        .execute();
    },

    async get<D>(tenantId: string, id: string): Promise<LogStreamRecord<D> | undefined> {
      const row = await db.selectFrom('log_streams').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return row && toRecord<D>(row);
    },

    /** Every stream of the tenant, oldest first (a tenant has a handful: the service caps them). */
    async list<D>(tenantId: string): Promise<LogStreamRecord<D>[]> {
      const rows = await db.selectFrom('log_streams').selectAll().where('tenant_id', '=', tenantId).orderBy('created_at').orderBy('id').execute();
      return rows.map((row) => toRecord<D>(row));
    },

    async count(tenantId: string): Promise<number> {
      const row = await db.selectFrom('log_streams').select((eb) => eb.fn.countAll<string | number>().as('n')).where('tenant_id', '=', tenantId).executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Changes settings and status; false when there is no such stream. */
    async update<D>(tenantId: string, id: string, change: LogStreamChange<D>): Promise<boolean> {
      const result = await one(tenantId, id)
        .set({
          ...(change.data !== undefined ? { data: toJson(change.data) } : {}),
          ...(change.status !== undefined ? { status: change.status } : {}),
          ...(change.resume ? { status_reason: null, failing_since: null, last_error: null } : {}),
        })
        .executeTakeFirst();
      return changed(result);
    },

    async remove(tenantId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('log_streams').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /**
     * Takes or renews the lease of an active stream for `owner` until `until`, when nobody else holds it or the
     * holder's lease ran out before `now`. True when `owner` holds it now.
     */
    async claim(tenantId: string, id: string, owner: string, now: string, until: string): Promise<boolean> {
      const result = await one(tenantId, id)
        .set({ lease_owner: owner, lease_expires_at: until })
        .where('status', '=', 'active')
        .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_owner', '=', owner), eb('lease_expires_at', '<', now)]))
        .executeTakeFirst();
      return changed(result);
    },

    /** Gives the lease up (shutdown, a paused or suspended stream), so that another node may take it at once. */
    async release(tenantId: string, id: string, owner: string): Promise<void> {
      await held(tenantId, id, owner).set({ lease_owner: null, lease_expires_at: null }).execute();
    },

    /**
     * Records that the sink acknowledged every event up to `position`, ends a run of failures, and renews the lease
     * until `until`. False when `owner` no longer holds the lease (then nothing changes).
     */
    async advance(tenantId: string, id: string, owner: string, position: string, until: string): Promise<boolean> {
      const result = await held(tenantId, id, owner)
        .set({ position, failing_since: null, last_error: null, lease_expires_at: until })
        .executeTakeFirst();
      return changed(result);
    },

    /** Records a failed delivery at `at`; answers when the run of failures began (undefined: the lease is lost). */
    async failed(tenantId: string, id: string, owner: string, at: string, error: string): Promise<string | undefined> {
      const row = await held(tenantId, id, owner)
        .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(at)), last_error: error }))
        .returning('failing_since')
        .executeTakeFirst();
      return row?.failing_since ?? undefined;
    },

    /** Suspends an active stream whose lease `owner` holds, saying why, and ends the lease. */
    async suspend(tenantId: string, id: string, owner: string, reason: string): Promise<boolean> {
      const result = await held(tenantId, id, owner)
        .where('status', '=', 'active')
        .set({ status: 'suspended', status_reason: reason, lease_owner: null, lease_expires_at: null })
        .executeTakeFirst();
      return changed(result);
    },
  };
}

export type LogStreamsRepository = ReturnType<typeof logStreamsRepository>;
