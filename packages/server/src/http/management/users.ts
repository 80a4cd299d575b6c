import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { usersService } from '../../services/users.js';
import { ERROR_RESPONSES, PaginationQuery, listResponse, listResponseSchema, pageWindow } from './schemas.js';

const Metadata = (description: string) => Type.Object({}, { additionalProperties: true, maxProperties: 100, description });
const NullableMetadata = (description: string) => Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'], additionalProperties: true, maxProperties: 100, description });

const profile = {
  email: Type.Optional(Type.String({ format: 'email', maxLength: 320, description: 'E-mail address.' })),
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[^@\\s]+$', description: 'Username (no @, no spaces).' })),
  phone_number: Type.Optional(Type.String({ pattern: '^\\+[0-9]{6,15}$', description: 'Phone number in E.164 form.' })),
  password: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Initial password (stored only as an Argon2id hash).' })),
  email_verified: Type.Optional(Type.Boolean({ description: 'Whether the e-mail is verified.' })),
  blocked: Type.Optional(Type.Boolean({ description: 'Whether the user is blocked from logging in.' })),
  name: Type.Optional(Type.String({ maxLength: 300, description: 'Full name.' })),
  nickname: Type.Optional(Type.String({ maxLength: 300, description: 'Nickname.' })),
  picture: Type.Optional(Type.String({ maxLength: 2048, description: 'Picture URL.' })),
  given_name: Type.Optional(Type.String({ maxLength: 150, description: 'Given name.' })),
  family_name: Type.Optional(Type.String({ maxLength: 150, description: 'Family name.' })),
};

const CreateBody = Type.Object(
  {
    connection: Type.String({ minLength: 1, description: 'Name of the connection the user belongs to.' }),
    ...profile,
    user_metadata: Type.Optional(Metadata('Data the user may read and edit.')),
    app_metadata: Type.Optional(Metadata('Data only the application may change.')),
  },
  { additionalProperties: false },
);

const UpdateBody = Type.Object(
  {
    connection: Type.Optional(Type.String({ minLength: 1, description: 'The user’s connection (cannot change).' })),
    ...profile,
    user_metadata: Type.Optional(NullableMetadata('Merged one level deep; a null value removes a key.')),
    app_metadata: Type.Optional(NullableMetadata('Merged one level deep; a null value removes a key.')),
  },
  { additionalProperties: false, minProperties: 1 },
);

const { password: _password, ...visible } = profile;
const User = Type.Object(
  {
    user_id: Type.String(),
    ...visible,
    name: Type.String(),
    nickname: Type.String(),
    picture: Type.String(),
    email_verified: Type.Boolean(),
    blocked: Type.Boolean(),
    identities: Type.Array(Type.Object({ connection: Type.String(), provider: Type.String(), user_id: Type.String(), isSocial: Type.Boolean() })),
    user_metadata: Type.Object({}, { additionalProperties: true }),
    app_metadata: Type.Object({}, { additionalProperties: true }),
    logins_count: Type.Integer(),
    last_login: Type.Optional(Type.String()),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { additionalProperties: false },
);

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 300, description: 'User id, e.g. auth0|abc (the | may be URL-encoded).' }) });

export function usersRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = usersService(registry);
    const tags = ['users'];
    app.get(
      '/users',
      {
        config: { scopes: ['read:users'] },
        schema: {
          tags,
          summary: 'List users',
          querystring: Type.Object(
            {
              ...PaginationQuery,
              connection: Type.Optional(Type.String({ description: 'Only users of this connection.' })),
              // Accepted for SDK compatibility; searching is not implemented, so the list is not filtered by them.
              q: Type.Optional(Type.String({ description: 'Search query (accepted, not applied).' })),
              search_engine: Type.Optional(Type.String({ description: 'Search engine version (accepted, not applied).' })),
              sort: Type.Optional(Type.String({ description: 'Sort order (accepted; users are listed by creation).' })),
              fields: Type.Optional(Type.String({ description: 'Accepted for compatibility.' })),
              include_fields: Type.Optional(Type.Boolean({ description: 'Accepted for compatibility.' })),
            },
            { additionalProperties: false },
          ),
          response: { 200: listResponseSchema('users', User), ...ERROR_RESPONSES },
        },
      },
      async (request) => {
        const window = pageWindow(request.query);
        const { connection } = request.query;
        const { items, total } = await service.list(window, connection ? { connection } : {});
        return listResponse('users', items, window, total, request.query.include_totals);
      },
    );
    app.get(
      '/users-by-email',
      {
        config: { scopes: ['read:users'] },
        schema: {
          tags,
          summary: 'Find users by e-mail (case-insensitive)',
          querystring: Type.Object(
            {
              email: Type.String({ minLength: 1, description: 'E-mail address to look up.' }),
              fields: Type.Optional(Type.String({ description: 'Accepted for compatibility.' })),
              include_fields: Type.Optional(Type.Boolean({ description: 'Accepted for compatibility.' })),
            },
            { additionalProperties: false },
          ),
          response: { 200: Type.Array(User), ...ERROR_RESPONSES },
        },
      },
      async (request) => service.byEmail(request.query.email),
    );
    app.post(
      '/users',
      { config: { scopes: ['create:users'] }, schema: { tags, summary: 'Create a user', body: CreateBody, response: { 201: User, ...ERROR_RESPONSES } } },
      async (request, reply) => reply.code(201).send(await service.create(request.body)),
    );
    app.get(
      '/users/:id',
      { config: { scopes: ['read:users'] }, schema: { tags, summary: 'Get a user', params: IdParams, response: { 200: User, ...ERROR_RESPONSES } } },
      async (request) => service.get(request.params.id),
    );
    app.patch(
      '/users/:id',
      { config: { scopes: ['update:users'] }, schema: { tags, summary: 'Update a user', params: IdParams, body: UpdateBody, response: { 200: User, ...ERROR_RESPONSES } } },
      async (request) => service.update(request.params.id, request.body),
    );
    app.delete(
      '/users/:id',
      { config: { scopes: ['delete:users'] }, schema: { tags, summary: 'Delete a user', params: IdParams, response: { 204: Type.Null(), ...ERROR_RESPONSES } } },
      async (request, reply) => {
        await service.remove(request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
