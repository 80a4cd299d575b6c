import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { UploadTooLarge, USERS_IMPORT_MAX_BYTES } from '../../services/jobs/jobs.js';
import { MAX_EXPORT_FIELDS } from '../../services/jobs/users-export.js';
import { badRequest, ManagementError } from './errors.js';
import { ERROR_RESPONSES, IdParams } from './schemas.js';
import { named } from '../plugin-name.js';

const Summary = Type.Object({ inserted: Type.Integer(), updated: Type.Integer(), failed: Type.Integer(), total: Type.Integer() });
const ExportField = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'A user property, or a path into one (user_metadata.country, identities[0].connection).' }),
    export_as: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The column (CSV) or key (JSON) it is written under.' })),
  },
  { additionalProperties: false },
);
const ImportJob = Type.Object({
  type: Type.Literal('users_import'),
  status: Type.String({ description: 'pending, processing, completed or failed.' }),
  id: Type.String(),
  created_at: Type.String(),
  connection_id: Type.String(),
  connection: Type.String(),
  external_id: Type.Optional(Type.String()),
  summary: Type.Optional(Summary),
});
const ExportJob = Type.Object({
  type: Type.Literal('users_export'),
  status: Type.String({ description: 'pending, processing or completed.' }),
  id: Type.String(),
  created_at: Type.String(),
  connection_id: Type.Optional(Type.String()),
  connection: Type.Optional(Type.String()),
  format: Type.Union([Type.Literal('json'), Type.Literal('csv')]),
  limit: Type.Optional(Type.Integer()),
  fields: Type.Array(ExportField),
  location: Type.Optional(Type.String({ description: 'Once completed: a link to the gzip-compressed file, valid for 10 minutes.' })),
});
const VerificationJob = Type.Object({ type: Type.Literal('verification_email'), status: Type.String(), id: Type.String(), created_at: Type.String() });
const Job = Type.Union([ImportJob, ExportJob, VerificationJob]);
const ExportBody = Type.Object(
  {
    connection_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The connection whose users are exported (all users when omitted).' })),
    format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv (default) or json (one JSON object per line).' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: 'At most this many users (all when omitted).' })),
    fields: Type.Optional(Type.Array(ExportField, { maxItems: MAX_EXPORT_FIELDS, description: 'The user fields to export (a default set when omitted).' })),
  },
  { additionalProperties: false },
);
const DownloadQuery = Type.Object(
  { expires: Type.Integer({ description: 'When the link stops working (Unix seconds).' }), signature: Type.String({ maxLength: 100, description: 'The link signature.' }) },
  { additionalProperties: false },
);

const JobErrors = Type.Array(
  Type.Object({
    user: Type.Unknown({ description: 'The record as given (without its password hash).' }),
    errors: Type.Array(Type.Object({ code: Type.String(), message: Type.String(), path: Type.String() })),
  }),
);

const FIELDS = new Set(['connection_id', 'upsert', 'external_id', 'send_completion_email']);
const flag = (value: string | undefined, name: string, fallback: boolean): boolean => {
  if (value === undefined) return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  throw badRequest(`${name} must be true or false.`);
};

/**
 * `POST /api/v2/jobs/users-imports` (multipart: the `users` file and its fields), `GET /api/v2/jobs/{id}` and
 * `GET /api/v2/jobs/{id}/errors`. The file is stored in chunks as it arrives, never whole in memory; past 500 KB
 * (the platform's limit) the answer is 413. `POST /api/v2/jobs/users-exports`, and the download its `location`
 * links to (`GET /api/v2/jobs/{id}/export-file`, signed, no bearer token), streamed from storage chunk by chunk.
 */
export function jobsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    // One file, a few short fields; busboy stops a file one byte past the limit so that the service sees it.
    await app.register(named(multipart), { limits: { files: 1, fields: 10, fieldSize: 1024, parts: 12, fileSize: USERS_IMPORT_MAX_BYTES + 1 } });

    app.post(
      '/jobs/users-imports',
      {
        config: { scopes: ['create:users'] },
        schema: { tags: ['jobs'], summary: 'Import users from a JSON file (multipart/form-data)', consumes: ['multipart/form-data'], response: { 201: Job, ...ERROR_RESPONSES } },
      },
      async (request, reply) => {
        if (!request.isMultipart()) throw new ManagementError(415, 'Unsupported Media Type: send multipart/form-data', 'unsupported_media_type');
        const jobs = registry.jobs;
        const id = jobs.newJobId();
        const fields = new Map<string, string>();
        let stored = false;
        try {
          for await (const part of request.parts()) {
            if (part.type === 'file') {
              if (part.fieldname !== 'users' || stored) throw badRequest('The only file is users.');
              await jobs.storeUpload(id, part.file);
              stored = true;
            } else if (FIELDS.has(part.fieldname) && typeof part.value === 'string') {
              fields.set(part.fieldname, part.value);
            }
          }
          const connectionId = fields.get('connection_id');
          if (!stored) throw badRequest("Payload validation error: 'Missing required property: users'.");
          if (!connectionId) throw badRequest("Payload validation error: 'Missing required property: connection_id'.");
          const externalId = fields.get('external_id');
          const job = await jobs.createUsersImport(id, {
            connectionId,
            upsert: flag(fields.get('upsert'), 'upsert', false),
            ...(externalId !== undefined && externalId !== '' ? { externalId } : {}),
            sendCompletionEmail: flag(fields.get('send_completion_email'), 'send_completion_email', true),
          });
          return await reply.code(201).send(job);
        } catch (error) {
          if (stored) await jobs.dropUpload(id);
          // The rest of a refused upload may be unread: the connection closes after the answer, so that the client
          // stops sending and sees the answer at once.
          void reply.header('connection', 'close');
          if (error instanceof UploadTooLarge) throw new ManagementError(413, error.message, 'payload_too_large');
          // The multipart parser's own refusals: too many parts or files (413), a malformed body (400).
          const status = (error as { statusCode?: unknown }).statusCode;
          if (!(error instanceof ManagementError) && status === 413) throw new ManagementError(413, `The upload is too large: one users file of at most ${USERS_IMPORT_MAX_BYTES} bytes.`, 'payload_too_large');
          if (!(error instanceof ManagementError) && status === 400) throw badRequest(`Malformed multipart body: ${(error as Error).message}`);
          throw error;
        }
      },
    );

    app.post(
      '/jobs/users-exports',
      {
        config: { scopes: ['read:users'] },
        schema: { tags: ['jobs'], summary: 'Export users to a file (CSV or JSON lines, gzip-compressed)', body: ExportBody, response: { 201: ExportJob, ...ERROR_RESPONSES } },
      },
      async (request, reply) => {
        const body = request.body;
        const job = await registry.jobs.createUsersExport({
          ...(body.connection_id !== undefined ? { connectionId: body.connection_id } : {}),
          format: body.format ?? 'csv',
          ...(body.limit !== undefined ? { limit: body.limit } : {}),
          ...(body.fields !== undefined ? { fields: body.fields } : {}),
        });
        return reply.code(201).send(job);
      },
    );

    app.get(
      '/jobs/:id/export-file',
      {
        // No bearer token: the signed link is the permission, as with the platform's storage links. Not an operation
        // of the platform's API (its links point at its file storage), so not in the OpenAPI document either.
        schema: { hide: true, tags: ['jobs'], summary: 'Download a finished users export (the link in its location)', params: IdParams('The job id.'), querystring: DownloadQuery },
      },
      async (request, reply) => {
        const { id } = request.params;
        if (!registry.exportDownloads.valid(id, request.query.expires, request.query.signature)) {
          throw new ManagementError(403, 'The download link is invalid or has expired; get a new one from GET /api/v2/jobs/{id}.', 'forbidden');
        }
        const file = await registry.jobs.exportFile(id);
        if (!file) throw new ManagementError(404, 'The export does not exist or is not finished.', 'inexistent_resource');
        return reply
          .type('application/gzip')
          .header('content-disposition', `attachment; filename="${registry.exportDownloads.fileName(id, file.format)}"`)
          .header('cache-control', 'private, no-store')
          .send(Readable.from(file.chunks, { objectMode: false }));
      },
    );

    app.get(
      '/jobs/:id',
      {
        config: { scopes: ['create:users', 'read:users'] },
        schema: { tags: ['jobs'], summary: 'Get a job', params: IdParams('The job id.'), response: { 200: Job, ...ERROR_RESPONSES } },
      },
      async (request) => registry.jobs.get(request.params.id),
    );

    app.get(
      '/jobs/:id/errors',
      {
        config: { scopes: ['create:users', 'read:users'] },
        schema: { tags: ['jobs'], summary: 'Get the failed records of a users import', params: IdParams('The job id.'), response: { 200: JobErrors, ...ERROR_RESPONSES } },
      },
      async (request) => registry.jobs.errors(request.params.id),
    );
  };
}
