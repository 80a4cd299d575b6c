import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { notFound } from './errors.js';
import { ERROR_RESPONSES, NO_CONTENT_RESPONSES } from './schemas.js';

const Blocks = Type.Object(
  {
    blocked_for: Type.Array(
      Type.Object({ identifier: Type.String(), ip: Type.String(), connection: Type.String() }, { additionalProperties: false }),
      { description: 'The addresses this account is blocked from after consecutive failed logins.' },
    ),
  },
  { additionalProperties: false },
);
const ById = Type.Object({ id: Type.String({ minLength: 1, maxLength: 300, description: 'The user id.' }) });
const ByIdentifier = Type.Object(
  { identifier: Type.String({ minLength: 1, maxLength: 320, description: 'The e-mail address or username that was blocked.' }) },
  { additionalProperties: false },
);

/** `GET/DELETE /api/v2/user-blocks/{id}` and `GET/DELETE /api/v2/user-blocks?identifier=`: brute-force blocks. */
export function userBlocksRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const protection = registry.loginProtection;
  const tags = ['user-blocks'];
  const userMustExist = async (id: string) => {
    if (!(await registry.storage.users.get(registry.tenantId, id))) throw notFound('The user does not exist.', 'inexistent_user');
  };
  return async (app) => {
    app.get(
      '/user-blocks/:id',
      { config: { scopes: ['read:users'] }, schema: { tags, summary: "A user's brute-force blocks", params: ById, response: { 200: Blocks, ...ERROR_RESPONSES } } },
      async (request) => {
        await userMustExist(request.params.id);
        return { blocked_for: await protection.blocks({ userId: request.params.id }) };
      },
    );
    app.delete(
      '/user-blocks/:id',
      { config: { scopes: ['update:users'] }, schema: { tags, summary: "Lift a user's brute-force blocks", params: ById, response: NO_CONTENT_RESPONSES } },
      async (request, reply) => {
        await userMustExist(request.params.id);
        await protection.unblock({ userId: request.params.id });
        return reply.code(204).send(null);
      },
    );
    app.get(
      '/user-blocks',
      { config: { scopes: ['read:users'] }, schema: { tags, summary: 'Brute-force blocks of an identifier', querystring: ByIdentifier, response: { 200: Blocks, ...ERROR_RESPONSES } } },
      async (request) => ({ blocked_for: await protection.blocks({ identifier: request.query.identifier }) }),
    );
    app.delete(
      '/user-blocks',
      { config: { scopes: ['update:users'] }, schema: { tags, summary: 'Lift the brute-force blocks of an identifier', querystring: ByIdentifier, response: NO_CONTENT_RESPONSES } },
      async (request, reply) => {
        await protection.unblock({ identifier: request.query.identifier });
        return reply.code(204).send(null);
      },
    );
  };
}
