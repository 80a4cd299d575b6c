import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { clientGrantsService } from '../../services/client-grants.js';
import { ERROR_RESPONSES, PaginationQuery, listResponse, listResponseSchema, pageWindow } from './schemas.js';

const Scopes = Type.Array(Type.String({ minLength: 1, maxLength: 280 }), { maxItems: 500, description: 'Scopes granted.' });

const ClientGrant = Type.Object(
  { id: Type.String(), client_id: Type.String(), audience: Type.String(), scope: Type.Array(Type.String()) },
  { additionalProperties: false },
);

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'Client grant id.' }) });

export function clientGrantsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = clientGrantsService(registry);
    const tags = ['client-grants'];
    app.get(
      '/client-grants',
      {
        config: { scopes: ['read:client_grants'] },
        schema: {
          tags,
          summary: 'List client grants',
          querystring: Type.Object(
            {
              ...PaginationQuery,
              audience: Type.Optional(Type.String({ description: 'Only grants for this API identifier.' })),
              client_id: Type.Optional(Type.String({ description: 'Only grants of this client.' })),
            },
            { additionalProperties: false },
          ),
          response: { 200: listResponseSchema('client_grants', ClientGrant), ...ERROR_RESPONSES },
        },
      },
      async (request) => {
        const { audience, client_id } = request.query;
        const window = pageWindow(request.query);
        const { items, total } = await service.list(window, { ...(audience ? { audience } : {}), ...(client_id ? { client_id } : {}) });
        return listResponse('client_grants', items, window, total, request.query.include_totals);
      },
    );
    app.post(
      '/client-grants',
      {
        config: { scopes: ['create:client_grants'] },
        schema: {
          tags,
          summary: 'Grant a client access to an API',
          body: Type.Object(
            { client_id: Type.String({ minLength: 1, description: 'Client id.' }), audience: Type.String({ minLength: 1, description: 'API identifier.' }), scope: Scopes },
            { additionalProperties: false },
          ),
          response: { 201: ClientGrant, ...ERROR_RESPONSES },
        },
      },
      async (request, reply) => reply.code(201).send(await service.create(request.body)),
    );
    app.patch(
      '/client-grants/:id',
      {
        config: { scopes: ['update:client_grants'] },
        schema: { tags, summary: 'Change the scopes of a client grant', params: IdParams, body: Type.Object({ scope: Scopes }, { additionalProperties: false }), response: { 200: ClientGrant, ...ERROR_RESPONSES } },
      },
      async (request) => service.update(request.params.id, request.body),
    );
    app.delete(
      '/client-grants/:id',
      { config: { scopes: ['delete:client_grants'] }, schema: { tags, summary: 'Delete a client grant', params: IdParams, response: { 204: Type.Null(), ...ERROR_RESPONSES } } },
      async (request, reply) => {
        await service.remove(request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
