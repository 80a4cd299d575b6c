import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { UploadTooLarge, USERS_IMPORT_MAX_BYTES } from '../../services/jobs/jobs.js';
import { badRequest, ManagementError } from './errors.js';
import { ERROR_RESPONSES, IdParams } from './schemas.js';

const Summary = Type.Object({ inserted: Type.Integer(), updated: Type.Integer(), failed: Type.Integer(), total: Type.Integer() });
const Job = Type.Object({
  type: Type.Literal('users_import'),
  status: Type.String({ description: 'pending, processing, completed or failed.' }),
  id: Type.String(),
  created_at: Type.String(),
  connection_id: Type.String(),
  connection: Type.String(),
  external_id: Type.Optional(Type.String()),
  summary: Type.Optional(Summary),
});
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
 * (the platform's limit) the answer is 413.
 */
export function jobsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    // One file, a few short fields; busboy stops a file one byte past the limit so that the service sees it.
    await app.register(multipart, { limits: { files: 1, fields: 10, fieldSize: 1024, parts: 12, fileSize: USERS_IMPORT_MAX_BYTES + 1 } });

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
