import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { STRATEGIES, connectionsService, type Strategy } from '../../services/connections.js';
import {
  CheckpointQuery,
  ERROR_RESPONSES,
  FieldsQuery,
  IdParams,
  NO_CONTENT_RESPONSES,
  PaginationQuery,
  listResponse,
  listResponseSchema,
  nullable,
  pageWindow,
} from './schemas.js';
import { deleteHandler, listHandler } from './resource-handlers.js';

const StrategyEnum = Type.Unsafe<Strategy>({ type: 'string', enum: [...STRATEGIES], description: `Connection strategy: ${STRATEGIES.join(', ')}.` });

const Options = Type.Object({}, { additionalProperties: true, description: 'Strategy-specific options (e.g. requires_username); a PATCH replaces them whole.' });
const EnabledClients = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 1000, description: 'Ids of the clients that may use this connection.' });

const changeable = {
  display_name: Type.Optional(Type.String({ maxLength: 128, description: 'Name shown on login pages.' })),
  is_domain_connection: Type.Optional(Type.Boolean({ description: 'Whether third-party applications may use the connection.' })),
  show_as_button: Type.Optional(Type.Boolean({ description: 'Whether the login page shows a button for the connection.' })),
  realms: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 10, description: 'Realms the connection answers to; defaults to its name.' })),
  metadata: Type.Optional(
    Type.Record(Type.String(), Type.String({ maxLength: 255 }), { maxProperties: 10, propertyNames: { maxLength: 255 }, description: 'Up to 10 string key/value pairs.' }),
  ),
};

const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, pattern: '^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$', description: 'Unique name: letters, digits and inner dashes.' }),
    strategy: StrategyEnum,
    options: Type.Optional(Options),
    enabled_clients: Type.Optional(EnabledClients),
    ...changeable,
  },
  { additionalProperties: false },
);

// No name or strategy: both are fixed at creation, so sending them is an unknown property (400).
const UpdateBody = Type.Object(
  { options: Type.Optional(nullable(Options)), enabled_clients: Type.Optional(nullable(EnabledClients)), ...changeable },
  { additionalProperties: false, minProperties: 1 },
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
    show_as_button: Type.Boolean(),
    realms: Type.Array(Type.String()),
    metadata: Type.Record(Type.String(), Type.String()),
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object(
  {
    ...PaginationQuery,
    ...CheckpointQuery,
    ...FieldsQuery,
    // The SDK repeats `strategy` for several; a single value is coerced to a one-item list. Any of the platform's
    // strategies may be asked for: one Latchkey does not have simply matches no connection.
    strategy: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 100, description: `Only connections of these strategies (repeatable); Latchkey has ${STRATEGIES.join(', ')}.` }),
    ),
    name: Type.Optional(Type.String({ description: 'Only the connection with this name.' })),
  },
  { additionalProperties: false },
);

const ConnectionIdParams = IdParams('Connection id.');

const EnabledClientsQuery = Type.Object(
  {
    from: CheckpointQuery.from,
    take: CheckpointQuery.take,
  },
  { additionalProperties: false },
);

const EnabledClientsPage = Type.Object(
  { clients: Type.Array(Type.Object({ client_id: Type.String() }, { additionalProperties: false })), next: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

const EnabledClientsChanges = Type.Array(
  Type.Object(
    {
      client_id: Type.String({ minLength: 1, maxLength: 100, description: 'The client whose status changes.' }),
      status: Type.Boolean({ description: 'Whether the connection is enabled for the client.' }),
    },
    { additionalProperties: false },
  ),
  { minItems: 1, maxItems: 50, description: 'At most 50 clients per request; clients not named keep their status.' },
);

export function connectionsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = connectionsService(registry);
    const tags = ['connections'];
    app.get(
      '/connections',
      {
        config: { scopes: ['read:connections'] },
        schema: { tags, summary: 'List connections', querystring: ListQuery, response: { 200: listResponseSchema('connections', Connection, { checkpoint: true }), ...ERROR_RESPONSES } },
      },
      listHandler('connections', (window, { strategy, name }) => service.list(window, { ...(strategy ? { strategy } : {}), ...(name ? { name } : {}) })),
    );
    app.post(
      '/connections',
      { config: { scopes: ['create:connections'] }, schema: { tags, summary: 'Create a connection', body: CreateBody, response: { 201: Connection, ...ERROR_RESPONSES } } },
      async (request, reply) => reply.code(201).send(await service.create(request.body)),
    );
    app.get(
      '/connections/:id',
      {
        config: { scopes: ['read:connections'] },
        schema: { tags, summary: 'Get a connection', params: ConnectionIdParams, querystring: Type.Object(FieldsQuery, { additionalProperties: false }), response: { 200: Connection, ...ERROR_RESPONSES } },
      },
      async (request) => service.get(request.params.id),
    );
    app.patch(
      '/connections/:id',
      { config: { scopes: ['update:connections'] }, schema: { tags, summary: 'Update a connection', params: ConnectionIdParams, body: UpdateBody, response: { 200: Connection, ...ERROR_RESPONSES } } },
      async (request) => service.update(request.params.id, request.body),
    );
    app.get(
      '/connections/:id/clients',
      {
        config: { scopes: ['read:connections'] },
        schema: { tags, summary: 'List the applications a connection is enabled for (checkpoint pagination)', params: ConnectionIdParams, querystring: EnabledClientsQuery, response: { 200: EnabledClientsPage, ...ERROR_RESPONSES } },
      },
      async (request) => {
        // Always checkpoint pagination, 50 a page unless `take` says otherwise.
        const window = pageWindow({ ...request.query, take: request.query.take ?? 50 });
        const { items, total } = await service.enabledClients(request.params.id, window);
        // A checkpoint window always answers `{clients, next?}`.
        return listResponse('clients', items, window, total, false) as Static<typeof EnabledClientsPage>;
      },
    );
    app.patch(
      '/connections/:id/clients',
      {
        config: { scopes: ['update:connections'] },
        schema: { tags, summary: 'Enable or disable the connection for applications', params: ConnectionIdParams, body: EnabledClientsChanges, response: NO_CONTENT_RESPONSES },
      },
      async (request, reply) => {
        await service.changeEnabledClients(request.params.id, request.body);
        return reply.code(204).send(null);
      },
    );
    app.delete(
      '/connections/:id',
      { config: { scopes: ['delete:connections'] }, schema: { tags, summary: 'Delete a connection and its users', params: ConnectionIdParams, response: NO_CONTENT_RESPONSES } },
      deleteHandler(({ id }) => service.remove(id)),
    );
  };
}
