import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { MAX_TOKEN_LIFETIME, resourceServersService } from '../../services/resource-servers.js';
import { TOKEN_DIALECTS, type TokenDialect } from '../../storage/records.js';
import { CheckpointQuery, ERROR_RESPONSES, FieldsQuery, IdParams, NO_CONTENT_RESPONSES, PaginationQuery, listResponseSchema } from './schemas.js';
import { deleteHandler, listHandler } from './resource-handlers.js';

const Scope = Type.Object(
  {
    value: Type.String({ minLength: 1, maxLength: 280, pattern: '^[^\\s]+$', description: 'Scope name (no spaces).' }),
    description: Type.Optional(Type.String({ maxLength: 500, description: 'What the scope allows.' })),
  },
  { additionalProperties: false },
);

const changeable = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[^<>]+$', description: 'Friendly name (no < or >).' })),
  scopes: Type.Optional(Type.Array(Scope, { maxItems: 500, description: 'Scopes the API defines: [{value, description}].' })),
  signing_alg: Type.Optional(Type.Literal('RS256', { description: 'Access token signing algorithm: RS256.' })),
  token_lifetime: Type.Optional(Type.Integer({ minimum: 60, maximum: MAX_TOKEN_LIFETIME, description: `Access token lifetime in seconds (60 to ${MAX_TOKEN_LIFETIME}).` })),
  allow_offline_access: Type.Optional(Type.Boolean({ description: 'Whether refresh tokens may be issued for this API.' })),
  skip_consent_for_verifiable_first_party_clients: Type.Optional(Type.Boolean({ description: 'Skip consent for first-party clients.' })),
  enforce_policies: Type.Optional(Type.Boolean({ description: 'RBAC: a user\u2019s token carries only the requested scopes the user holds as permissions.' })),
  token_dialect: Type.Optional(
    Type.Unsafe<TokenDialect>({
      type: 'string',
      enum: [...TOKEN_DIALECTS],
      description: 'access_token (default), access_token_authz (with a permissions claim under RBAC), rfc9068_profile or rfc9068_profile_authz (RFC 9068 tokens, typ at+jwt).',
    }),
  ),
};

const CreateBody = Type.Object(
  { identifier: Type.String({ minLength: 1, maxLength: 600, description: 'Unique identifier, the audience of its tokens; it cannot be changed later.' }), ...changeable },
  { additionalProperties: false },
);
// No `identifier`: the platform fixes it at creation, so sending one is an unknown property (400).
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
    enforce_policies: Type.Boolean(),
    token_dialect: Type.String(),
    is_system: Type.Boolean(),
  },
  { additionalProperties: false },
);

const ResourceServerParams = IdParams('Resource server id, or its URL-encoded identifier.', 600);

const ListQuery = Type.Object(
  {
    ...PaginationQuery,
    identifiers: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 600 }), { minItems: 1, maxItems: 10, description: 'Only these identifiers (repeat the parameter, at most 10).' }),
    ),
    ...FieldsQuery,
    ...CheckpointQuery,
  },
  { additionalProperties: false },
);

export function resourceServersRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = resourceServersService(registry);
    const tags = ['resource-servers'];
    app.get(
      '/resource-servers',
      {
        config: { scopes: ['read:resource_servers'] },
        schema: { tags, summary: 'List resource servers', querystring: ListQuery, response: { 200: listResponseSchema('resource_servers', ResourceServer, { checkpoint: true }), ...ERROR_RESPONSES } },
      },
      listHandler('resource_servers', (window, { identifiers }) => service.list(window, identifiers ? { identifiers } : {})),
    );
    app.post(
      '/resource-servers',
      { config: { scopes: ['create:resource_servers'] }, schema: { tags, summary: 'Create a resource server', body: CreateBody, response: { 201: ResourceServer, ...ERROR_RESPONSES } } },
      async (request, reply) => reply.code(201).send(await service.create(request.body)),
    );
    app.get(
      '/resource-servers/:id',
      {
        config: { scopes: ['read:resource_servers'] },
        schema: {
          tags,
          summary: 'Get a resource server',
          params: ResourceServerParams,
          querystring: Type.Object({ include_fields: ListQuery.properties.include_fields }, { additionalProperties: false }),
          response: { 200: ResourceServer, ...ERROR_RESPONSES },
        },
      },
      async (request) => service.get(request.params.id),
    );
    app.patch(
      '/resource-servers/:id',
      {
        config: { scopes: ['update:resource_servers'] },
        schema: { tags, summary: 'Update a resource server (the system API keeps its name and scopes)', params: ResourceServerParams, body: UpdateBody, response: { 200: ResourceServer, ...ERROR_RESPONSES } },
      },
      async (request) => service.update(request.params.id, request.body),
    );
    app.delete(
      '/resource-servers/:id',
      {
        config: { scopes: ['delete:resource_servers'] },
        schema: { tags, summary: 'Delete a resource server and its grants (not the system API)', params: ResourceServerParams, response: NO_CONTENT_RESPONSES },
      },
      deleteHandler(({ id }) => service.remove(id)),
    );
  };
}
