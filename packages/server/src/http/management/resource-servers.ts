import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { resourceServersService } from '../../services/resource-servers.js';
import { ERROR_RESPONSES, PaginationQuery, listResponse, listResponseSchema, pageWindow } from './schemas.js';

const Scope = Type.Object(
  { value: Type.String({ minLength: 1, maxLength: 280, pattern: '^[^\\s]+$', description: 'Scope name (no spaces).' }), description: Type.Optional(Type.String({ maxLength: 500 })) },
  { additionalProperties: false },
);

const changeable = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Friendly name.' })),
  scopes: Type.Optional(Type.Array(Scope, { maxItems: 500, description: 'Scopes the API defines.' })),
  token_lifetime: Type.Optional(Type.Integer({ minimum: 60, maximum: 2592000, description: 'Access token lifetime in seconds.' })),
  allow_offline_access: Type.Optional(Type.Boolean({ description: 'Whether refresh tokens may be issued for this API.' })),
  skip_consent_for_verifiable_first_party_clients: Type.Optional(Type.Boolean({ description: 'Skip consent for first-party clients.' })),
};

const CreateBody = Type.Object(
  { identifier: Type.String({ minLength: 1, maxLength: 600, description: 'Unique identifier: the audience of its tokens.' }), ...changeable, signing_alg: Type.Optional(Type.Literal('RS256')) },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(changeable, { additionalProperties: false, minProperties: 1 });

const ResourceServer = Type.Object(
  {
    id: Type.String(),
    identifier: Type.String(),
    name: Type.String(),
    scopes: Type.Array(Scope),
    token_lifetime: Type.Integer(),
    signing_alg: Type.String(),
    allow_offline_access: Type.Boolean(),
    skip_consent_for_verifiable_first_party_clients: Type.Boolean(),
    is_system: Type.Boolean(),
  },
  { additionalProperties: false },
);

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 600, description: 'Resource server id or identifier.' }) });

export function resourceServersRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = resourceServersService(registry);
    const tags = ['resource-servers'];
    app.get(
      '/resource-servers',
      {
        config: { scopes: ['read:resource_servers'] },
        schema: { tags, summary: 'List resource servers', querystring: Type.Object(PaginationQuery, { additionalProperties: false }), response: { 200: listResponseSchema('resource_servers', ResourceServer), ...ERROR_RESPONSES } },
      },
      async (request) => {
        const window = pageWindow(request.query);
        const { items, total } = await service.list(window);
        return listResponse('resource_servers', items, window, total, request.query.include_totals);
      },
    );
    app.post(
      '/resource-servers',
      { config: { scopes: ['create:resource_servers'] }, schema: { tags, summary: 'Create a resource server', body: CreateBody, response: { 201: ResourceServer, ...ERROR_RESPONSES } } },
      async (request, reply) => reply.code(201).send(await service.create(request.body)),
    );
    app.get(
      '/resource-servers/:id',
      { config: { scopes: ['read:resource_servers'] }, schema: { tags, summary: 'Get a resource server', params: IdParams, response: { 200: ResourceServer, ...ERROR_RESPONSES } } },
      async (request) => service.get(request.params.id),
    );
    app.patch(
      '/resource-servers/:id',
      { config: { scopes: ['update:resource_servers'] }, schema: { tags, summary: 'Update a resource server', params: IdParams, body: UpdateBody, response: { 200: ResourceServer, ...ERROR_RESPONSES } } },
      async (request) => service.update(request.params.id, request.body),
    );
    app.delete(
      '/resource-servers/:id',
      { config: { scopes: ['delete:resource_servers'] }, schema: { tags, summary: 'Delete a resource server and its grants', params: IdParams, response: { 204: Type.Null(), ...ERROR_RESPONSES } } },
      async (request, reply) => {
        await service.remove(request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
