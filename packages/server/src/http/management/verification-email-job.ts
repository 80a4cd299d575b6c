import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { sendVerificationEmail } from '../../services/email-verification.js';
import { ServiceError } from '../../services/errors.js';
import { ERROR_RESPONSES } from './schemas.js';

const Body = Type.Object(
  {
    user_id: Type.String({ minLength: 1, maxLength: 300, description: 'The user the verification e-mail goes to.' }),
    client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The application the e-mail names.' })),
    identity: Type.Optional(Type.Object({ user_id: Type.String(), provider: Type.String() }, { description: 'Accepted; the primary identity is verified.' })),
    organization_id: Type.Optional(Type.String({ description: 'Accepted; organizations are not modelled.' })),
  },
  { additionalProperties: false },
);

const Job = Type.Object({ id: Type.String(), type: Type.Literal('verification_email'), status: Type.String(), created_at: Type.String() });

/**
 * `POST /api/v2/jobs/verification-email`: the e-mail is sent before the answer, so the job the platform queues is
 * answered, and stored, already `completed` (`GET /api/v2/jobs/{id}` knows it).
 */
export function verificationEmailJobRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/jobs/verification-email',
      {
        config: { scopes: ['update:users'] },
        schema: { tags: ['jobs'], summary: 'Send a verification e-mail', body: Body, response: { 201: Job, ...ERROR_RESPONSES } },
      },
      async (request, reply) => {
        const { storage, tenantId } = registry;
        const body = request.body;
        const user = await storage.users.get(tenantId, body.user_id);
        if (!user) throw new ServiceError('not_found', 'The user does not exist.', 'inexistent_user');
        if (!user.data.email) throw new ServiceError('invalid', 'The user has no e-mail address.', 'invalid_body');
        const client = body.client_id === undefined ? undefined : await registry.oauthConfig.client(body.client_id);
        if (body.client_id !== undefined && !client) throw new ServiceError('not_found', 'The client does not exist', 'inexistent_client');
        await sendVerificationEmail(
          { verifications: registry.emailVerifications, notifier: registry.notifier, events: registry.events },
          { userId: user.id, email: user.data.email, connection: user.columns.connection, clientId: body.client_id, clientName: client?.data.name },
        );
        const job = await registry.jobs.recordVerificationEmail({ user_id: user.id, ...(body.client_id !== undefined ? { client_id: body.client_id } : {}) });
        return reply.code(201).send(job);
      },
    );
  };
}
