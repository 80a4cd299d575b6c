import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { STRATEGIES, connectionsService, type Strategy } from '../../services/connections.js';
import { ERROR_RESPONSES, PaginationQuery, listResponse, listResponseSchema, pageWindow } from './schemas.js';

const StrategyEnum = Type.Unsafe<Strategy>({ type: 'string', enum: [...STRATEGIES], description: `Connection strategy: ${STRATEGIES.join(', ')}.` });

const changeable = {
  display_name: Type.Optional(Type.String({ maxLength: 128, description: 'Name shown on login pages.' })),
  enabled_clients: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 1000, description: 'Ids of the clients that may use this connection.' })),
  options: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Strategy-specific options (e.g. requires_username, passwordPolicy).' })),
  is_domain_connection: Type.Optional(Type.Boolean({ description: 'Whether the connection is a domain-level connection.' })),
  realms: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 10, description: 'Realms the connection answers to.' })),
};

const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, pattern: '^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$', description: 'Unique name: letters, digits and inner dashes.' }),
    strategy: StrategyEnum,
    ...changeable,
  },
  { additionalProperties: false },
);

const Connection = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    strategy: Type.String(),
    display_name: Type.Optional(Type.String()),
    enabled_clients: Type.Array(Type.String()),
    options: Type.Object({}, { additionalProperties: true }),
    is_domain_connection: Type.Boolean(),
    realms: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'Connection id.' }) });

export function connectionsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = connectionsService(registry);
    const tags = ['connections'];
    app.get(
      '/connections',
      {
        config: { scopes: ['read:connections'] },
        schema: {
          tags,
          summary: 'List connections',
          querystring: Type.Object(
            { ...PaginationQuery, strategy: Type.Optional(StrategyEnum), name: Type.Optional(Type.String({ description: 'Only the connection with this name.' })) },
            { additionalProperties: false },
          ),
          response: { 200: listResponseSchema('connections', Connection), ...ERROR_RESPONSES },
        },
      },
      async (request) => {
        const { strategy, name } = request.query;
        const window = pageWindow(request.query);
        const { items, total } = await service.list(window, { ...(strategy ? { strategy } : {}), ...(name ? { name } : {}) });
        return listResponse('connections', items, window, total, request.query.include_totals);
      },
    );
    app.post(
      '/connections',
      { config: { scopes: ['create:connections'] }, schema: { tags, summary: 'Create a connection', body: CreateBody, response: { 201: Connection, ...ERROR_RESPONSES } } },
      async (request, reply) => reply.code(201).send(await service.create(request.body)),
    );
    app.get(
      '/connections/:id',
      { config: { scopes: ['read:connections'] }, schema: { tags, summary: 'Get a connection', params: IdParams, response: { 200: Connection, ...ERROR_RESPONSES } } },
      async (request) => service.get(request.params.id),
    );
    app.patch(
      '/connections/:id',
      {
        config: { scopes: ['update:connections'] },
        schema: { tags, summary: 'Update a connection', params: IdParams, body: Type.Object(changeable, { additionalProperties: false, minProperties: 1 }), response: { 200: Connection, ...ERROR_RESPONSES } },
      },
      async (request) => service.update(request.params.id, request.body),
    );
    app.delete(
      '/connections/:id',
      { config: { scopes: ['delete:connections'] }, schema: { tags, summary: 'Delete a connection and its users', params: IdParams, response: { 204: Type.Null(), ...ERROR_RESPONSES } } },
      async (request, reply) => {
        await service.remove(request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
