import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { consentsService } from '../../services/consents.js';
import { deleteHandler, listHandler } from './resource-handlers.js';
import { ERROR_RESPONSES, IdParams, listResponseSchema, NO_CONTENT_RESPONSES, PaginationQuery } from './schemas.js';

const UserGrant = Type.Object(
  { id: Type.String(), clientID: Type.String(), user_id: Type.String(), audience: Type.String(), scope: Type.Array(Type.String()) },
  { additionalProperties: false },
);

const ListQuery = Type.Object(
  {
    ...PaginationQuery,
    user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'Only the grants of this user.' })),
    client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only the grants to this application.' })),
    audience: Type.Optional(Type.String({ minLength: 1, maxLength: 600, description: 'Only the grants for this API (its identifier).' })),
  },
  { additionalProperties: false },
);
const DeleteQuery = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 300, description: 'Delete every grant of this user.' }) }, { additionalProperties: false });

/**
 * `/api/v2/grants`: the consent users gave applications (stored when they accept the consent screen). Deleting a
 * grant makes the application ask again at the next authorization.
 */
export function grantsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const grants = consentsService(registry);
    const tags = ['grants'];
    app.get(
      '/grants',
      { config: { scopes: ['read:grants'] }, schema: { tags, summary: 'List users\u2019 grants (consent)', querystring: ListQuery, response: { 200: listResponseSchema('grants', UserGrant), ...ERROR_RESPONSES } } },
      listHandler('grants', (window, query) =>
        grants.list(window, {
          ...(query.user_id !== undefined ? { userId: query.user_id } : {}),
          ...(query.client_id !== undefined ? { clientId: query.client_id } : {}),
          ...(query.audience !== undefined ? { audience: query.audience } : {}),
        }),
      ),
    );
    app.delete(
      '/grants/:id',
      { config: { scopes: ['delete:grants'] }, schema: { tags, summary: 'Delete a grant', params: IdParams('The grant id.'), response: NO_CONTENT_RESPONSES } },
      deleteHandler(({ id }) => grants.remove(id)),
    );
    app.delete(
      '/grants',
      { config: { scopes: ['delete:grants'] }, schema: { tags, summary: 'Delete every grant of a user', querystring: DeleteQuery, response: NO_CONTENT_RESPONSES } },
      async (request, reply) => {
        await grants.removeOfUser(request.query.user_id);
        return reply.code(204).send(null);
      },
    );
  };
}
