import type { Kysely, Selectable } from 'kysely';
import type { Database, JobsTable } from '../schema.js';
import { fromJson, toJson } from './json.js';

export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed';

/** A job as stored: its `data` (the service's shape), status, progress and lease. */
export interface JobRecord<D> {
  id: string;
  type: string;
  status: JobStatus;
  data: D;
  /** Input records done; a run resumes after them. */
  position: number;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  createdAt: string;
}

const toRecord = <D>(row: Selectable<JobsTable>): JobRecord<D> => ({
  id: row.id,
  type: row.type,
  status: row.status as JobStatus,
  data: fromJson<D>(row.data),
  position: Number(row.position),
  leaseOwner: row.lease_owner,
  leaseExpiresAt: row.lease_expires_at,
  createdAt: row.created_at,
});

/**
 * Jobs, their uploaded input and their leases. A job runs on the node holding its lease; `claimNext` hands an
 * unfinished job whose lease is free or ran out to one node: on PostgreSQL the candidate row is locked with
 * `FOR UPDATE SKIP LOCKED` (concurrent claimers pass over it to the next job instead of waiting), on SQLite the
 * file's single writer serialises claims. Progress writes name the owner, so a node whose lease was taken over
 * changes nothing. Times are ISO 8601 text, which sorts as it compares.
 */
export function jobsRepository(db: Kysely<Database>) {
  const one = (tenantId: string, id: string) => db.updateTable('jobs').where('tenant_id', '=', tenantId).where('id', '=', id);
  const held = (tenantId: string, id: string, owner: string) => one(tenantId, id).where('lease_owner', '=', owner);
  const changed = (result: { numUpdatedRows: bigint }) => result.numUpdatedRows > 0n;

  return {
    /** Stores a new job, `pending` unless said otherwise (a job done before it is stored is `completed`). */
    async insert<D>(tenantId: string, job: { id: string; type: string; data: D; createdAt: string; status?: JobStatus }): Promise<void> {
      await db
        .insertInto('jobs')
        .values({ tenant_id: tenantId, id: job.id, type: job.type, status: job.status ?? 'pending', data: toJson(job.data), position: 0, lease_owner: null, lease_expires_at: null, created_at: job.createdAt })
        .execute();
    },

    /** Appends one chunk of a job's input (chunks are numbered from 0 by the writer, in order). */
    async appendInput(tenantId: string, jobId: string, seq: number, content: string): Promise<void> {
      await db.insertInto('job_inputs').values({ tenant_id: tenantId, job_id: jobId, seq, content }).execute();
    },

    /** Drops a job's input (an upload refused half-way, a finished job). */
    async dropInput(tenantId: string, jobId: string): Promise<void> {
      await db.deleteFrom('job_inputs').where('tenant_id', '=', tenantId).where('job_id', '=', jobId).execute();
    },

    /** One chunk of a job's input; undefined after the last. */
    async inputChunk(tenantId: string, jobId: string, seq: number): Promise<string | undefined> {
      const row = await db.selectFrom('job_inputs').select('content').where('tenant_id', '=', tenantId).where('job_id', '=', jobId).where('seq', '=', seq).executeTakeFirst();
      return row?.content;
    },

    /** Stores one chunk of a job's output (numbered from 0 by the runner, in order). */
    async appendOutput(tenantId: string, jobId: string, seq: number, content: Uint8Array): Promise<void> {
      await db.insertInto('job_outputs').values({ tenant_id: tenantId, job_id: jobId, seq, content }).execute();
    },

    /** Drops a job's output chunks from `fromSeq` on (a run resumed after its last recorded chunk), or all of them. */
    async dropOutput(tenantId: string, jobId: string, fromSeq = 0): Promise<void> {
      await db.deleteFrom('job_outputs').where('tenant_id', '=', tenantId).where('job_id', '=', jobId).where('seq', '>=', fromSeq).execute();
    },

    /** One chunk of a job's output; undefined after the last. */
    async outputChunk(tenantId: string, jobId: string, seq: number): Promise<Uint8Array | undefined> {
      const row = await db.selectFrom('job_outputs').select('content').where('tenant_id', '=', tenantId).where('job_id', '=', jobId).where('seq', '=', seq).executeTakeFirst();
      return row?.content;
    },

    async get<D>(tenantId: string, id: string): Promise<JobRecord<D> | undefined> {
      const row = await db.selectFrom('jobs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return row && toRecord<D>(row);
    },

    /**
     * Takes the lease of the oldest unfinished job that nobody holds (or whose holder's lease ran out before
     * `now`) for `owner` until `until`, marking it `processing`. `skipLocked`: PostgreSQL's row claim.
     */
    async claimNext<D>(tenantId: string, owner: string, now: string, until: string, skipLocked: boolean): Promise<JobRecord<D> | undefined> {
      return db.transaction().execute(async (trx) => {
        let candidates = trx
          .selectFrom('jobs')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('status', 'in', ['pending', 'processing'])
          .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_expires_at', '<', now)]))
          .orderBy('created_at')
          .orderBy('id')
          .limit(1);
        if (skipLocked) candidates = candidates.forUpdate().skipLocked();
        const candidate = await candidates.executeTakeFirst();
        if (!candidate) return undefined;
        const row = await trx
          .updateTable('jobs')
          .set({ status: 'processing', lease_owner: owner, lease_expires_at: until })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', candidate.id)
          .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_expires_at', '<', now)]))
          .returningAll()
          .executeTakeFirst();
        return row && toRecord<D>(row);
      });
    },

    /** Records progress (records done, the data with its summary) and renews the lease; false when the lease is lost. */
    async advance<D>(tenantId: string, id: string, owner: string, change: { position: number; data: D; until: string }): Promise<boolean> {
      const result = await held(tenantId, id, owner).set({ position: change.position, data: toJson(change.data), lease_expires_at: change.until }).executeTakeFirst();
      return changed(result);
    },

    /** Ends a job (completed or failed) with its final data, ends the lease and drops its input. */
    async finish<D>(tenantId: string, id: string, owner: string, status: 'completed' | 'failed', data: D): Promise<boolean> {
      const result = await held(tenantId, id, owner).set({ status, data: toJson(data), lease_owner: null, lease_expires_at: null }).executeTakeFirst();
      if (!changed(result)) return false;
      await db.deleteFrom('job_inputs').where('tenant_id', '=', tenantId).where('job_id', '=', id).execute();
      return true;
    },

    /** Gives the lease up (shutdown), so that another node may take the job at once. */
    async release(tenantId: string, id: string, owner: string): Promise<void> {
      await held(tenantId, id, owner).set({ lease_owner: null, lease_expires_at: null }).execute();
    },
  };
}

export type JobsRepository = ReturnType<typeof jobsRepository>;
