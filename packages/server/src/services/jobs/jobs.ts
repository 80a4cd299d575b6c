import { randomId } from '../../crypto/random.js';
import type { Storage } from '../../storage/storage.js';
import { ServiceError } from '../errors.js';
import type { ExportDownloads } from './export-download.js';
import type { ImportRecordError } from './users-import.js';
import { DEFAULT_EXPORT_FIELDS, exportFields, type ExportField, type ExportFormat } from './users-export.js';

/**
 * The platform's limit on a bulk-import file (500 KB); a larger upload is refused with 413 and its stored part
 * dropped. Files are stored in chunks as they arrive and read back in chunks by the runner.
 */
export const USERS_IMPORT_MAX_BYTES = 500 * 1024;
/** Characters per stored chunk of an uploaded file. */
export const INPUT_CHUNK_CHARS = 64 * 1024;

export interface ImportSummary {
  inserted: number;
  updated: number;
  failed: number;
  total: number;
}

/** A users-import job's stored data: its parameters, then what the runner found. */
export interface UsersImportJobData {
  connection_id: string;
  connection: string;
  upsert: boolean;
  external_id?: string;
  send_completion_email: boolean;
  summary: ImportSummary;
  errors: ImportRecordError[];
}

/** A users-export job's stored data: its parameters, then how far the runner got. */
export interface UsersExportJobData {
  connection_id?: string;
  connection?: string;
  format: ExportFormat;
  limit?: number;
  fields: ExportField[];
  /** The last user exported (users are walked in id order). */
  cursor?: string;
  /** Output chunks written. */
  chunks: number;
  exported: number;
}

/** A verification-email job: sent before it is stored, so stored already completed. */
export interface VerificationEmailJobData {
  user_id: string;
  client_id?: string;
}

export type JobView = ImportJobView | ExportJobView | VerificationJobView;
export interface ImportJobView {
      type: 'users_import';
      status: string;
      id: string;
      created_at: string;
      connection_id: string;
      connection: string;
      external_id?: string;
      summary?: ImportSummary;
}
export interface ExportJobView {
      type: 'users_export';
      status: string;
      id: string;
      created_at: string;
      connection_id?: string;
      connection?: string;
      format: ExportFormat;
      limit?: number;
      fields: ExportField[];
      location?: string;
}
export interface VerificationJobView {
  type: 'verification_email';
  status: string;
  id: string;
  created_at: string;
}

export interface JobsDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
  /** Tells the local runner a job is waiting (others find it on their next poll). */
  wake: () => void;
  downloads: ExportDownloads;
}

export class UploadTooLarge extends Error {}

/** A job's stored input or output, chunk after chunk (numbered from 0), read one at a time as it is consumed. */
export async function* numberedChunks<T>(read: (seq: number) => Promise<T | undefined>): AsyncGenerator<T> {
  for (let seq = 0; ; seq += 1) {
    const chunk = await read(seq);
    if (chunk === undefined) return;
    yield chunk;
  }
}

const noJob = () => new ServiceError('not_found', 'The job does not exist.', 'inexistent_resource');

export function jobsService(deps: JobsDeps) {
  const { storage, tenantId } = deps;
  return {
    /** A new job's id (the platform's form, `job_` and 16 characters); its upload is stored under it first. */
    newJobId: () => `job_${randomId(16)}`,

    /**
     * Stores an uploaded users file under `id` chunk by chunk as it arrives. Throws UploadTooLarge past
     * USERS_IMPORT_MAX_BYTES, and a ServiceError for text that is not UTF-8; either way what was stored is dropped.
     */
    async storeUpload(id: string, file: AsyncIterable<Buffer>): Promise<void> {
      const decoder = new TextDecoder('utf-8', { fatal: true });
      let bytes = 0;
      let seq = 0;
      let pending = '';
      const flush = async (all: boolean) => {
        while (pending.length >= INPUT_CHUNK_CHARS || (all && pending.length > 0)) {
          await storage.jobs.appendInput(tenantId, id, seq, pending.slice(0, INPUT_CHUNK_CHARS));
          seq += 1;
          pending = pending.slice(INPUT_CHUNK_CHARS);
        }
      };
      try {
        for await (const part of file) {
          bytes += part.length;
          if (bytes > USERS_IMPORT_MAX_BYTES) throw new UploadTooLarge(`The users file is larger than ${USERS_IMPORT_MAX_BYTES} bytes (500 KB).`);
          pending += decoder.decode(part, { stream: true });
          await flush(false);
        }
        pending += decoder.decode();
        await flush(true);
      } catch (error) {
        await storage.jobs.dropInput(tenantId, id);
        if (error instanceof TypeError) throw new ServiceError('invalid', 'The users file is not UTF-8 text.', 'invalid_body');
        throw error;
      }
    },

    /** Drops a stored upload whose job will not be created (a bad field after the file). */
    dropUpload: (id: string) => storage.jobs.dropInput(tenantId, id),

    /**
     * Creates the pending users-import job over the upload stored under `id` (the runner never sees a
     * half-stored file: the job row comes last). A bad connection drops the upload and throws a ServiceError.
     */
    async createUsersImport(id: string, input: { connectionId: string; upsert: boolean; externalId?: string; sendCompletionEmail: boolean }): Promise<ImportJobView> {
      const connection = await storage.connections.get(tenantId, input.connectionId);
      if (!connection || connection.data.strategy !== 'auth0') {
        await storage.jobs.dropInput(tenantId, id);
        if (!connection) throw new ServiceError('not_found', 'The connection does not exist.', 'inexistent_connection');
        throw new ServiceError('invalid', 'Users can only be imported into database connections.', 'invalid_body');
      }
      const at = deps.now().toISOString();
      const data: UsersImportJobData = {
        connection_id: connection.id,
        connection: connection.columns.name,
        upsert: input.upsert,
        ...(input.externalId !== undefined ? { external_id: input.externalId } : {}),
        send_completion_email: input.sendCompletionEmail,
        summary: { inserted: 0, updated: 0, failed: 0, total: 0 },
        errors: [],
      };
      await storage.jobs.insert(tenantId, { id, type: 'users_import', data, createdAt: at });
      deps.wake();
      return importView({ id, status: 'pending', data, createdAt: at });
    },

    /** Creates a pending users-export job; the fields are checked now, so that a bad export fails at once. */
    async createUsersExport(input: { connectionId?: string; format: ExportFormat; limit?: number; fields?: ExportField[] }): Promise<ExportJobView> {
      exportFields(input.format, input.fields);
      const connection = input.connectionId === undefined ? undefined : await storage.connections.get(tenantId, input.connectionId);
      if (input.connectionId !== undefined && !connection) throw new ServiceError('not_found', 'The connection does not exist.', 'inexistent_connection');
      const id = `job_${randomId(16)}`;
      const at = deps.now().toISOString();
      const data: UsersExportJobData = {
        ...(connection ? { connection_id: connection.id, connection: connection.columns.name } : {}),
        format: input.format,
        ...(input.limit !== undefined ? { limit: input.limit } : {}),
        fields: input.fields !== undefined && input.fields.length > 0 ? input.fields : DEFAULT_EXPORT_FIELDS,
        chunks: 0,
        exported: 0,
      };
      await storage.jobs.insert(tenantId, { id, type: 'users_export', data, createdAt: at });
      deps.wake();
      return exportView({ id, status: 'pending', data, createdAt: at });
    },

    /** Stores a verification e-mail that was sent, as a completed job (`GET /api/v2/jobs/{id}` knows it). */
    async recordVerificationEmail(data: VerificationEmailJobData): Promise<VerificationJobView> {
      const id = `job_${randomId(16)}`;
      const at = deps.now().toISOString();
      await storage.jobs.insert(tenantId, { id, type: 'verification_email', data, createdAt: at, status: 'completed' });
      return { type: 'verification_email', status: 'completed', id, created_at: at };
    },

    async get(id: string): Promise<JobView> {
      const job = await storage.jobs.get<StoredJobData>(tenantId, id);
      if (!job) throw noJob();
      return view(job);
    },

    /**
     * A completed export's file, chunk by chunk (each a gzip member), for a download whose link checked out;
     * undefined when there is no such finished export.
     */
    async exportFile(id: string): Promise<{ format: ExportFormat; chunks: AsyncIterable<Uint8Array> } | undefined> {
      const job = await storage.jobs.get<UsersExportJobData>(tenantId, id);
      if (!job || job.type !== 'users_export' || job.status !== 'completed') return undefined;
      return { format: job.data.format, chunks: numberedChunks((seq) => storage.jobs.outputChunk(tenantId, id, seq)) };
    },

    /** The failed records of a finished job (empty while it runs, as on the platform). */
    async errors(id: string): Promise<ImportRecordError[]> {
      const job = await storage.jobs.get<StoredJobData>(tenantId, id);
      if (!job) throw noJob();
      if (job.type !== 'users_import') return [];
      return job.status === 'completed' || job.status === 'failed' ? (job.data as UsersImportJobData).errors : [];
    },
  };

  function view(job: { id: string; type: string; status: string; data: StoredJobData; createdAt: string }): JobView {
    if (job.type === 'verification_email') return { type: 'verification_email', status: job.status, id: job.id, created_at: job.createdAt };
    if (job.type === 'users_export') return exportView({ ...job, data: job.data as UsersExportJobData });
    return importView({ ...job, data: job.data as UsersImportJobData });
  }

  function exportView(job: { id: string; status: string; data: UsersExportJobData; createdAt: string }): ExportJobView {
    const data = job.data;
    return {
      type: 'users_export',
      status: job.status,
      id: job.id,
      created_at: job.createdAt,
      ...(data.connection_id !== undefined ? { connection_id: data.connection_id } : {}),
      ...(data.connection !== undefined ? { connection: data.connection } : {}),
      format: data.format,
      ...(data.limit !== undefined ? { limit: data.limit } : {}),
      fields: data.fields,
      ...(job.status === 'completed' ? { location: deps.downloads.location(job.id) } : {}),
    };
  }
}

function importView(job: { id: string; status: string; data: UsersImportJobData; createdAt: string }): ImportJobView {
  const finished = job.status === 'completed' || job.status === 'failed';
  return {
    type: 'users_import',
    status: job.status,
    id: job.id,
    created_at: job.createdAt,
    connection_id: job.data.connection_id,
    connection: job.data.connection,
    ...(job.data.external_id !== undefined ? { external_id: job.data.external_id } : {}),
    ...(finished ? { summary: job.data.summary } : {}),
  };
}

type StoredJobData = UsersImportJobData | UsersExportJobData | VerificationEmailJobData;

export type JobsService = ReturnType<typeof jobsService>;
