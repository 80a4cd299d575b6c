import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { usersService } from '../../services/users.js';
import { ERROR_RESPONSES, FieldsQuery, IdParams, NO_CONTENT_RESPONSES, PaginationQuery, listResponse, listResponseSchema, nullable, pageWindow } from './schemas.js';

const Metadata = (description: string) => Type.Object({}, { additionalProperties: true, maxProperties: 100, description });

/** Profile fields; a PATCH may also clear them with null. */
const profile = {
  name: Type.String({ maxLength: 300, description: 'Full name.' }),
  nickname: Type.String({ maxLength: 300, description: 'Nickname.' }),
  picture: Type.String({ maxLength: 2048, description: 'Picture URL.' }),
  given_name: Type.String({ maxLength: 150, description: 'Given name.' }),
  family_name: Type.String({ maxLength: 150, description: 'Family name.' }),
};

const credentials = {
  email: Type.Optional(Type.String({ format: 'email', maxLength: 320, description: 'E-mail address (stored lower-case).' })),
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[^@\\s]+$', description: 'Username (no @, no spaces); only for connections with requires_username.' })),
  phone_number: Type.Optional(Type.String({ pattern: '^\\+[0-9]{6,15}$', description: 'Phone number in E.164 form.' })),
  password: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Password of a database user (stored only as an Argon2id hash, never returned).' })),
  email_verified: Type.Optional(Type.Boolean({ description: 'Whether the e-mail is verified.' })),
  phone_verified: Type.Optional(Type.Boolean({ description: 'Whether the phone number is verified.' })),
  blocked: Type.Optional(Type.Boolean({ description: 'Whether the user is blocked from logging in.' })),
  // Latchkey sends no verification e-mails, so only the value that asks for none is accepted.
  verify_email: Type.Optional(Type.Literal(false, { description: 'Only false: Latchkey sends no verification e-mail.' })),
};

const CreateBody = Type.Object(
  {
    connection: Type.String({ minLength: 1, description: 'Name of the connection the user belongs to.' }),
    ...credentials,
    ...Type.Partial(Type.Object(profile)).properties,
    user_metadata: Type.Optional(Metadata('Data the user may read and edit.')),
    app_metadata: Type.Optional(Metadata('Data only applications may change.')),
  },
  { additionalProperties: false },
);

const mergedMetadata = 'Merged one level deep: a key with null is removed; {} or null clears all.';
const UpdateBody = Type.Object(
  {
    connection: Type.Optional(Type.String({ minLength: 1, description: 'The user’s connection (cannot change).' })),
    ...credentials,
    name: Type.Optional(nullable(profile.name)),
    nickname: Type.Optional(nullable(profile.nickname)),
    picture: Type.Optional(nullable(profile.picture)),
    given_name: Type.Optional(nullable(profile.given_name)),
    family_name: Type.Optional(nullable(profile.family_name)),
    user_metadata: Type.Optional(nullable(Metadata(mergedMetadata))),
    app_metadata: Type.Optional(nullable(Metadata(mergedMetadata))),
  },
  { additionalProperties: false, minProperties: 1 },
);

const { password: _password, verify_email: _verifyEmail, ...shown } = credentials;
const User = Type.Object(
  {
    user_id: Type.String(),
    ...shown,
    ...Type.Partial(Type.Object(profile)).properties,
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

const UserIdParams = IdParams('User id, e.g. auth0|abc (the | may be URL-encoded as %7C).', 300);

const ListQuery = Type.Object(
  {
    ...PaginationQuery,
    ...FieldsQuery,
    connection: Type.Optional(Type.String({ description: 'Only users of this connection.' })),
    // Searching is not implemented: these are accepted so that SDK calls work, and the list is not filtered by them.
    q: Type.Optional(Type.String({ description: 'Search query (accepted, not applied).' })),
    search_engine: Type.Optional(Type.String({ description: 'Search engine version (accepted, not applied).' })),
    sort: Type.Optional(Type.String({ description: 'Sort order (accepted; users are listed in creation order).' })),
    primary_order: Type.Optional(Type.Boolean({ description: 'Accepted; the order is always deterministic.' })),
  },
  { additionalProperties: false },
);

export function usersRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = usersService(registry);
    const tags = ['users'];
    app.get(
      '/users',
      { config: { scopes: ['read:users'] }, schema: { tags, summary: 'List users', querystring: ListQuery, response: { 200: listResponseSchema('users', User), ...ERROR_RESPONSES } } },
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
          querystring: Type.Object({ email: Type.String({ minLength: 1, maxLength: 320, description: 'E-mail address to look up.' }), ...FieldsQuery }, { additionalProperties: false }),
          response: { 200: Type.Array(User), ...ERROR_RESPONSES },
        },
      },
      async (request) => service.byEmail(request.query.email),
    );
    app.post(
      '/users',
      { config: { scopes: ['create:users'] }, schema: { tags, summary: 'Create a user', body: CreateBody, response: { 201: User, ...ERROR_RESPONSES } } },
      async (request, reply) => {
        const { verify_email: _verify, ...input } = request.body;
        return reply.code(201).send(await service.create(input));
      },
    );
    app.get(
      '/users/:id',
      {
        config: { scopes: ['read:users'] },
        schema: { tags, summary: 'Get a user', params: UserIdParams, querystring: Type.Object(FieldsQuery, { additionalProperties: false }), response: { 200: User, ...ERROR_RESPONSES } },
      },
      async (request) => service.get(request.params.id),
    );
    app.patch(
      '/users/:id',
      { config: { scopes: ['update:users'] }, schema: { tags, summary: 'Update a user', params: UserIdParams, body: UpdateBody, response: { 200: User, ...ERROR_RESPONSES } } },
      async (request) => {
        const { verify_email: _verify, ...patch } = request.body;
        return service.update(request.params.id, patch);
      },
    );
    app.delete(
      '/users/:id',
      { config: { scopes: ['delete:users'] }, schema: { tags, summary: 'Delete a user', params: UserIdParams, response: NO_CONTENT_RESPONSES } },
      async (request, reply) => {
        await service.remove(request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
