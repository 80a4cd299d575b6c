import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * Background jobs of the Management API (`/api/v2/jobs`, services/jobs). One row per job:
 * - `type` (`users_import`), `status` (`pending`, `processing`, `completed`, `failed`);
 * - `data`: the job's parameters, summary and failed records as JSON;
 * - `position`: how many input records are done; a job taken over after a restart resumes after them;
 * - `lease_owner` and `lease_expires_at`: the node running the job now, and until when (one node at a time).
 * The uploaded file is kept in `job_inputs` in chunks of at most 64 KiB, in order, so that neither the upload
 * nor the run holds it whole in memory and any node can run the job.
 */
export const jobs = {
  async up(db: AnyDb): Promise<void> {
    await db.schema
      .createTable('jobs')
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_owner', 'text')
      .addColumn('lease_expires_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('jobs_pk', ['tenant_id', 'id'])
      .execute();
    // The runner's question: which unfinished jobs, oldest first.
    await db.schema.createIndex('jobs_unfinished').on('jobs').columns(['status', 'created_at']).execute();
    await db.schema
      .createTable('job_inputs')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('job_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('job_inputs_pk', ['tenant_id', 'job_id', 'seq'])
      .execute();
  },
};
