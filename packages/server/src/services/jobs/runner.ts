import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { randomId } from '../../crypto/random.js';
import type { Logger } from 'pino';
import type { Storage } from '../../storage/storage.js';
import type { JobRecord } from '../../storage/repositories/jobs.js';
import { userView } from '../users.js';
import { numberedChunks, type UsersExportJobData, type UsersImportJobData } from './jobs.js';
import { ImportFileError, jsonArrayRecords } from './json-array-records.js';
import { exportedText, exportFields } from './users-export.js';
import { ImportRecordRefused, importUserBatch } from './users-import.js';

const gzipped = promisify(gzip);

export interface JobRunnerOptions {
  /** Milliseconds between looks for waiting jobs when idle (default 2000). */
  pollMs?: number;
  /** How long a claimed job is this node's without renewal (default 60 s); renewed after every batch. */
  leaseMs?: number;
  /** Records imported together and between progress writes (default 500); a job taken over resumes after the last write. */
  batchSize?: number;
  /** Users per export batch, each one gzip member of the file (default 1000). */
  exportBatchSize?: number;
  /**
   * Jobs this node runs at once (default 2). A job's work is mostly the database's: two at a time keep PostgreSQL
   * busy on two cores where one job leaves the node waiting on each statement (SQLite writes one at a time anyway).
   */
  concurrency?: number;
  /** false: this node takes no jobs (tests of a node that stops before running what it accepted). */
  enabled?: boolean;
}

export interface JobRunnerDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  options?: JobRunnerOptions;
}

/** The longest record of an import file the runner reads (the whole file is at most 500 KB anyway). */
const MAX_RECORD_CHARS = 256 * 1024;
/** Failed records kept for `/errors`; a file of bad records does not grow the job's row without end. */
const MAX_KEPT_ERRORS = 10_000;

/** A failed record as listed, without its password hash. */
function echoed(record: unknown): unknown {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return record;
  const { password_hash: _hash, custom_password_hash: _custom, ...rest } = record as Record<string, unknown>;
  return rest;
}

/**
 * Runs stored jobs, a few at a time on this node (`concurrency`), each on exactly one node: it claims the oldest unfinished job
 * whose lease is free or ran out (storage/repositories/jobs.ts), works through it in batches renewing the lease,
 * and finishes it. A job a stopped node held is taken over when its lease runs out, or at once when the node
 * stopped cleanly (`close` releases the lease), and resumes after its last recorded batch.
 */
export function jobRunner(deps: JobRunnerDeps) {
  const { storage, tenantId, log } = deps;
  const pollMs = deps.options?.pollMs ?? 2000;
  const leaseMs = deps.options?.leaseMs ?? 60_000;
  const batchSize = deps.options?.batchSize ?? 500;
  const exportBatchSize = deps.options?.exportBatchSize ?? 1000;
  const owner = `runner-${randomId(12)}`;
  const concurrency = deps.options?.concurrency ?? 2;
  let stopped = false;
  const sleepers = new Set<() => void>();
  let loop: Promise<void> | undefined;

  const until = () => new Date(deps.now().getTime() + leaseMs).toISOString();

  async function runUsersImport(job: JobRecord<UsersImportJobData>): Promise<void> {
    const data = job.data;
    const connection = await storage.connections.findOne(tenantId, { name: data.connection });
    if (!connection) {
      data.errors.push({ user: null, errors: [{ code: 'INVALID_CONNECTION', message: `The connection ${data.connection} no longer exists.`, path: 'connection_id' }] });
      await storage.jobs.finish(tenantId, job.id, owner, 'failed', data);
      return;
    }
    const target = { name: connection.columns.name, data: connection.data };
    let index = 0;
    let position = job.position;
    let batch: { text: string; record: unknown }[] = [];
    /** Imports the batch, records the outcomes and the position; false when this run must stop (lease lost, shutdown). */
    const flush = async (): Promise<boolean> => {
      if (batch.length === 0) return true;
      const outcomes = await importUserBatch({ storage, tenantId, at: deps.now().toISOString() }, target, batch.map((item) => item.record), data.upsert);
      for (const [i, outcome] of outcomes.entries()) {
        data.summary.total += 1;
        if (!(outcome instanceof ImportRecordRefused)) {
          data.summary[outcome] += 1;
          continue;
        }
        data.summary.failed += 1;
        const item = batch[i];
        const echo = item && !(item.record instanceof SyntaxError) ? echoed(item.record) : item?.text;
        if (data.errors.length < MAX_KEPT_ERRORS) data.errors.push({ user: echo, errors: [{ code: outcome.code, message: outcome.message, path: outcome.path }] });
      }
      position += batch.length;
      batch = [];
      if (!(await storage.jobs.advance(tenantId, job.id, owner, { position, data, until: until() }))) return false;
      if (stopped) {
        await storage.jobs.release(tenantId, job.id, owner);
        return false;
      }
      return true;
    };
    try {
      for await (const text of jsonArrayRecords(numberedChunks((seq) => storage.jobs.inputChunk(tenantId, job.id, seq)), MAX_RECORD_CHARS)) {
        index += 1;
        if (index <= position) continue;
        let record: unknown;
        try {
          record = JSON.parse(text);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          record = error;
        }
        batch.push({ text, record });
        if (batch.length >= batchSize && !(await flush())) return;
      }
      if (!(await flush())) return;
    } catch (error) {
      if (!(error instanceof ImportFileError)) throw error;
      data.errors.push({ user: null, errors: [{ code: 'INVALID_FORMAT', message: error.message, path: '' }] });
      await storage.jobs.finish(tenantId, job.id, owner, 'failed', data);
      return;
    }
    await storage.jobs.finish(tenantId, job.id, owner, 'completed', data);
    log.info({ job: job.id, summary: data.summary }, 'users import completed');
  }

  /**
   * Writes the users (of the connection, or all) in id order, a batch at a time: each batch becomes one gzip
   * member stored as the next output chunk, then the cursor and the chunk count are recorded with the lease
   * renewal. A run taken over drops any chunk written after the last record and goes on from the cursor.
   */
  async function runUsersExport(job: JobRecord<UsersExportJobData>): Promise<void> {
    const data = job.data;
    const fields = exportFields(data.format, data.fields);
    await storage.jobs.dropOutput(tenantId, job.id, data.chunks);
    const where = { linked_to: null, ...(data.connection !== undefined ? { connection: data.connection } : {}) };
    for (;;) {
      const wanted = Math.min(exportBatchSize, data.limit === undefined ? exportBatchSize : data.limit - data.exported);
      const records = wanted > 0 ? await storage.users.listAfter(tenantId, data.cursor, wanted, where) : [];
      // The first chunk is written even for no users: a CSV file has its header, and the file is a gzip file.
      if (records.length === 0 && data.chunks > 0) break;
      const text = exportedText(data.format, fields, records.map(userView), data.chunks === 0);
      await storage.jobs.appendOutput(tenantId, job.id, data.chunks, await gzipped(text));
      data.chunks += 1;
      data.exported += records.length;
      const last = records.at(-1);
      if (last) data.cursor = last.id;
      if (!(await storage.jobs.advance(tenantId, job.id, owner, { position: data.exported, data, until: until() }))) return;
      if (records.length < wanted || wanted === 0) break;
      if (stopped) {
        await storage.jobs.release(tenantId, job.id, owner);
        return;
      }
    }
    await storage.jobs.finish(tenantId, job.id, owner, 'completed', data);
    log.info({ job: job.id, exported: data.exported }, 'users export completed');
  }

  /** Claims and runs jobs until none waits; true when it ran at least one. */
  async function drain(): Promise<void> {
    while (!stopped) {
      const now = deps.now();
      const job = await storage.jobs.claimNext<UsersImportJobData | UsersExportJobData>(tenantId, owner, now.toISOString(), until(), storage.dialect.name === 'postgres');
      if (!job) return;
      try {
        if (job.type === 'users_export') await runUsersExport(job as JobRecord<UsersExportJobData>);
        else await runUsersImport(job as JobRecord<UsersImportJobData>);
      } catch (error) {
        // A database failure mid-job: the lease is given up, and the job resumes from its last batch later.
        log.error({ err: error, job: job.id }, 'job run failed; it will be resumed');
        await storage.jobs.release(tenantId, job.id, owner).catch(() => undefined);
        return;
      }
    }
  }

  /** Waits `pollMs`, or less when woken. */
  function nap(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, pollMs);
      timer.unref();
      sleepers.add(done);
    });
  }

  async function run(): Promise<void> {
    while (!stopped) {
      await drain().catch((error: unknown) => log.warn({ err: error }, 'job runner could not look for jobs'));
      if (stopped) return;
      await nap();
    }
  }

  return {
    start() {
      if (deps.options?.enabled === false || loop) return;
      loop = Promise.all(Array.from({ length: concurrency }, run)).then(() => undefined);
    },
    /** A job was stored on this node: look now rather than at the next poll. */
    wake() {
      for (const wakeUp of [...sleepers]) wakeUp();
    },
    /** Stops taking jobs; a job in progress stops at its next batch and gives its lease up. */
    async close() {
      stopped = true;
      for (const wakeUp of [...sleepers]) wakeUp();
      await loop;
    },
  };
}

export type JobRunner = ReturnType<typeof jobRunner>;
