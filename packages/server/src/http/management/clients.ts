import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { clientsService, type ClientData } from '../../services/clients.js';
import { ERROR_RESPONSES, PaginationQuery, listResponse, listResponseSchema, pageWindow } from './schemas.js';

const Urls = (description: string) => Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 100, description });
const StringMap = (description: string) => Type.Record(Type.String(), Type.String({ maxLength: 255 }), { maxProperties: 10, description });

/** Fields a caller may set, with the platform's names. */
const writable = {
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Name of the application.' }),
  description: Type.Optional(Type.String({ maxLength: 140, description: 'Free-text description.' })),
  logo_uri: Type.Optional(Type.String({ maxLength: 2048, description: 'URL of the logo.' })),
  app_type: Type.Optional(Type.Unsafe<ClientData['app_type']>({ type: 'string', enum: ['spa', 'native', 'regular_web', 'non_interactive'], description: 'Type of application.' })),
  callbacks: Type.Optional(Urls('Allowed callback URLs (exact match).')),
  allowed_logout_urls: Type.Optional(Urls('URLs allowed as returnTo after logout.')),
  web_origins: Type.Optional(Urls('Origins allowed for web message and cross-origin calls.')),
  allowed_origins: Type.Optional(Urls('Origins allowed to make CORS requests.')),
  grant_types: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20, description: 'Grant types the client may use.' })),
  token_endpoint_auth_method: Type.Optional(
    Type.Unsafe<ClientData['token_endpoint_auth_method']>({ type: 'string', enum: ['none', 'client_secret_post', 'client_secret_basic'], description: 'How the client authenticates at the token endpoint.' }),
  ),
  jwt_configuration: Type.Optional(
    Type.Object(
      {
        alg: Type.Optional(Type.Unsafe<'RS256' | 'HS256'>({ type: 'string', enum: ['RS256', 'HS256'], description: 'ID token signing algorithm.' })),
        lifetime_in_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 2592000, description: 'ID token lifetime.' })),
      },
      { additionalProperties: false },
    ),
  ),
  cross_origin_authentication: Type.Optional(Type.Boolean({ description: 'Whether cross-origin login (/co/authenticate) is allowed.' })),
  is_first_party: Type.Optional(Type.Boolean({ description: 'Whether the application is first party.' })),
  oidc_conformant: Type.Optional(Type.Boolean({ description: 'OIDC conformant.' })),
  sso_disabled: Type.Optional(Type.Boolean({ description: 'Disable single sign-on.' })),
  client_metadata: Type.Optional(StringMap('Up to 10 string key/value pairs.')),
};

const CreateBody = Type.Object(writable, { additionalProperties: false });
const { name: _name, ...optional } = writable;
const UpdateBody = Type.Object({ ...optional, name: Type.Optional(writable.name) }, { additionalProperties: false, minProperties: 1 });

const Client = Type.Object(
  {
    client_id: Type.String(),
    tenant: Type.String(),
    global: Type.Boolean(),
    client_secret: Type.Optional(Type.String()),
    ...optional,
    name: Type.String(),
    client_metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
);

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'Client id.' }) });

export function clientsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = clientsService(registry);
    const tags = ['clients'];
    app.get(
      '/clients',
      {
        config: { scopes: ['read:clients'] },
        schema: { tags, summary: 'List clients', querystring: Type.Object(PaginationQuery, { additionalProperties: false }), response: { 200: listResponseSchema('clients', Client), ...ERROR_RESPONSES } },
      },
      async (request) => {
        const window = pageWindow(request.query);
        const { items, total } = await service.list(window);
        return listResponse('clients', items, window, total, request.query.include_totals);
      },
    );
    app.post(
      '/clients',
      { config: { scopes: ['create:clients'] }, schema: { tags, summary: 'Create a client', body: CreateBody, response: { 201: Client, ...ERROR_RESPONSES } } },
      async (request, reply) => reply.code(201).send(await service.create(request.body)),
    );
    app.get(
      '/clients/:id',
      { config: { scopes: ['read:clients'] }, schema: { tags, summary: 'Get a client', params: IdParams, response: { 200: Client, ...ERROR_RESPONSES } } },
      async (request) => service.get(request.params.id),
    );
    app.patch(
      '/clients/:id',
      { config: { scopes: ['update:clients'] }, schema: { tags, summary: 'Update a client', params: IdParams, body: UpdateBody, response: { 200: Client, ...ERROR_RESPONSES } } },
      async (request) => service.update(request.params.id, request.body),
    );
    app.delete(
      '/clients/:id',
      { config: { scopes: ['delete:clients'] }, schema: { tags, summary: 'Delete a client and its grants', params: IdParams, response: { 204: Type.Null(), ...ERROR_RESPONSES } } },
      async (request, reply) => {
        await service.remove(request.params.id);
        return reply.code(204).send(null);
      },
    );
    app.post(
      '/clients/:id/rotate-secret',
      { config: { scopes: ['update:client_keys'] }, schema: { tags, summary: 'Rotate the client secret (shown once)', params: IdParams, response: { 200: Client, ...ERROR_RESPONSES } } },
      async (request) => service.rotateSecret(request.params.id),
    );
  };
}
