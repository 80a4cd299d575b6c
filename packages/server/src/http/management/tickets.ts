import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { ServiceError } from '../../services/errors.js';
import { ERROR_RESPONSES } from './schemas.js';

const PasswordChangeTicket = Type.Object(
  {
    user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'The user whose password changes.' })),
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 320, description: 'With connection_id, instead of user_id.' })),
    connection_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The database connection of email.' })),
    client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The application the pages are branded for.' })),
    result_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'Where the success page links to.' })),
    ttl_sec: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 86_400, description: 'Lifetime in seconds (0: five days).' })),
    mark_email_as_verified: Type.Optional(Type.Boolean({ description: 'Mark the e-mail verified when the password is set.' })),
  },
  { additionalProperties: false },
);

const EmailVerificationTicket = Type.Object(
  {
    user_id: Type.String({ minLength: 1, maxLength: 300, description: 'The user whose e-mail address is verified.' }),
    client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The application the page is branded for.' })),
    result_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'Where the link redirects once verified.' })),
    ttl_sec: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 86_400, description: 'Lifetime in seconds (0: five days).' })),
    includeEmailInRedirect: Type.Optional(Type.Boolean({ description: 'Add the address to result_url as `email`.' })),
    identity: Type.Optional(Type.Object({ user_id: Type.String(), provider: Type.String() }, { description: 'Accepted; the primary identity is verified.' })),
  },
  { additionalProperties: false },
);

const invalid = (message: string) => new ServiceError('invalid', message, 'invalid_body');

/** `POST /api/v2/tickets/password-change`: a link to the hosted reset page for one user. */
export function ticketsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/tickets/password-change',
      {
        config: { scopes: ['create:user_tickets'] },
        schema: { tags: ['tickets'], summary: 'Create a password change ticket', body: PasswordChangeTicket, response: { 201: Type.Object({ ticket: Type.String() }), ...ERROR_RESPONSES } },
      },
      async (request, reply) => {
        const body = request.body;
        const { storage, tenantId } = registry;
        let userId = body.user_id;
        if (userId !== undefined && (body.email !== undefined || body.connection_id !== undefined)) throw invalid('Give user_id, or email with connection_id, not both.');
        if (userId === undefined) {
          if (body.email === undefined || body.connection_id === undefined) throw invalid('Missing user_id, or email with connection_id.');
          const connection = await storage.connections.get(tenantId, body.connection_id);
          if (!connection || connection.data.strategy !== 'auth0') throw new ServiceError('not_found', 'The connection does not exist', 'inexistent_connection');
          const user = await storage.users.findOne(tenantId, { connection: connection.data.name, email: body.email.trim().toLowerCase() });
          if (!user) throw new ServiceError('not_found', 'The user does not exist.', 'inexistent_user');
          userId = user.id;
        }
        const user = await storage.users.get(tenantId, userId);
        if (!user) throw new ServiceError('not_found', 'The user does not exist.', 'inexistent_user');
        if (!user.columns.password_hash) throw invalid('The user does not belong to a database connection.');
        if (body.client_id !== undefined && !(await storage.clients.get(tenantId, body.client_id))) {
          throw new ServiceError('not_found', 'The client does not exist', 'inexistent_client');
        }
        const ticket = await registry.passwordResets.create({
          userId,
          clientId: body.client_id,
          resultUrl: body.result_url,
          ttlSeconds: body.ttl_sec,
          markEmailAsVerified: body.mark_email_as_verified,
        });
        return reply.code(201).send({ ticket });
      },
    );

    app.post(
      '/tickets/email-verification',
      {
        config: { scopes: ['create:user_tickets'] },
        schema: { tags: ['tickets'], summary: 'Create an e-mail verification ticket', body: EmailVerificationTicket, response: { 201: Type.Object({ ticket: Type.String() }), ...ERROR_RESPONSES } },
      },
      async (request, reply) => {
        const body = request.body;
        if (body.client_id !== undefined && !(await registry.storage.clients.get(registry.tenantId, body.client_id))) {
          throw new ServiceError('not_found', 'The client does not exist', 'inexistent_client');
        }
        const ticket = await registry.emailVerifications.create({
          userId: body.user_id,
          clientId: body.client_id,
          resultUrl: body.result_url,
          ttlSeconds: body.ttl_sec,
          includeEmailInRedirect: body.includeEmailInRedirect,
        });
        return reply.code(201).send({ ticket });
      },
    );
  };
}
