import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authenticateClient } from '../../oauth/client-auth.js';
import { clientCredentialsOf } from '../../oauth/token-request.js';
import { clientTransport } from './client-transport.js';
import { InvalidRequest } from '../../oauth/errors.js';
import { revokeRefreshToken } from '../../oauth/revoke.js';
import type { Registry } from '../../registry.js';

const RevokeRequest = Type.Object(
  {
    token: Type.Optional(Type.String({ description: 'The refresh token.' })),
    token_type_hint: Type.Optional(Type.String({ description: 'refresh_token (the only kind that can be revoked).' })),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

const text = (body: Record<string, unknown>, name: string) => {
  const value = body[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new InvalidRequest(`Parameter '${name}' must be a string.`);
  return value;
};

/** `POST /oauth/revoke` (RFC 7009): the client authenticates as at the token endpoint. */
export function revokeRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/oauth/revoke',
      { schema: { tags: ['authentication'], summary: 'Revoke a refresh token', body: RevokeRequest } },
      async (request, reply) => {
        const body = request.body as Record<string, unknown>;
        const client = await authenticateClient(clientCredentialsOf(body, clientTransport(request)), registry.clientAuth);
        await revokeRefreshToken(client, text(body, 'token'), text(body, 'token_type_hint'), {
          storage: registry.storage,
          tenantId: registry.tenantId,
          handleKey: registry.handleKey,
          now: registry.now,
        });
        return reply.code(200).header('cache-control', 'no-store').send();
      },
    );
  };
}
