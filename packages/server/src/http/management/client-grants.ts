import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { clientGrantsService } from '../../services/client-grants.js';
import {
  CheckpointQuery,
  ERROR_RESPONSES,
  IdParams,
  NO_CONTENT_RESPONSES,
  PaginationQuery,
  listResponseSchema,
  nullable,
} from './schemas.js';
import { deleteHandler, listHandler } from './resource-handlers.js';

const Scopes = Type.Array(Type.String({ minLength: 1, maxLength: 280 }), { maxItems: 500, description: 'Scopes granted; each must be defined by the API.' });

const ClientGrant = Type.Object(
  { id: Type.String(), client_id: Type.String(), audience: Type.String(), scope: Type.Array(Type.String()) },
  { additionalProperties: false },
);

const CreateBody = Type.Object(
  {
    client_id: Type.String({ minLength: 1, maxLength: 100, description: 'Id of an existing client.' }),
    audience: Type.String({ minLength: 1, maxLength: 600, description: 'Identifier of an existing resource server.' }),
    scope: Type.Optional(Scopes),
  },
  { additionalProperties: false },
);

const UpdateBody = Type.Object(
  { scope: Type.Optional(nullable(Scopes, 'The new scopes, replacing the old ones (null: none).')) },
  { additionalProperties: false, minProperties: 1 },
);

const ListQuery = Type.Object(
  {
    ...PaginationQuery,
    ...CheckpointQuery,
    audience: Type.Optional(Type.String({ description: 'Only grants for this API identifier.' })),
    client_id: Type.Optional(Type.String({ description: 'Only grants of this client.' })),
    // Organizations, user-subject grants and group defaults do not exist here: asking for them matches nothing.
    allow_any_organization: Type.Optional(Type.Boolean({ description: 'true: only grants allowing any organization (none here); false: every grant.' })),
    subject_type: Type.Optional(Type.Unsafe<'client' | 'user'>({ type: 'string', enum: ['client', 'user'], description: 'client: every grant here; user: none.' })),
    default_for: Type.Optional(Type.Unsafe<'third_party_clients'>({ type: 'string', enum: ['third_party_clients'], description: 'Default grants for a group of clients (none here).' })),
  },
  { additionalProperties: false },
);

const GrantIdParams = IdParams('Client grant id.');

export function clientGrantsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = clientGrantsService(registry);
    const tags = ['client-grants'];
    app.get(
      '/client-grants',
      {
        config: { scopes: ['read:client_grants'] },
        schema: { tags, summary: 'List client grants', querystring: ListQuery, response: { 200: listResponseSchema('client_grants', ClientGrant, { checkpoint: true }), ...ERROR_RESPONSES } },
      },
      listHandler('client_grants', async (window, { audience, client_id, allow_any_organization: anyOrganization, subject_type: subjectType, default_for: defaultFor }) => {
        const nothing = anyOrganization === true || subjectType === 'user' || defaultFor !== undefined;
        return nothing ? { items: [], total: 0 } : service.list(window, { ...(audience ? { audience } : {}), ...(client_id ? { client_id } : {}) });
      }),
    );
    app.post(
      '/client-grants',
      {
        config: { scopes: ['create:client_grants'] },
        schema: { tags, summary: 'Grant a client access to an API', body: CreateBody, response: { 201: ClientGrant, ...ERROR_RESPONSES } },
      },
      async (request, reply) => reply.code(201).send(await service.create(request.body)),
    );
    app.get(
      '/client-grants/:id',
      { config: { scopes: ['read:client_grants'] }, schema: { tags, summary: 'Get a client grant', params: GrantIdParams, response: { 200: ClientGrant, ...ERROR_RESPONSES } } },
      async (request) => service.get(request.params.id),
    );
    app.patch(
      '/client-grants/:id',
      {
        config: { scopes: ['update:client_grants'] },
        schema: { tags, summary: 'Change the scopes of a client grant', params: GrantIdParams, body: UpdateBody, response: { 200: ClientGrant, ...ERROR_RESPONSES } },
      },
      async (request) => service.update(request.params.id, request.body),
    );
    app.delete(
      '/client-grants/:id',
      { config: { scopes: ['delete:client_grants'] }, schema: { tags, summary: 'Delete a client grant', params: GrantIdParams, response: NO_CONTENT_RESPONSES } },
      deleteHandler(({ id }) => service.remove(id)),
    );
  };
}
