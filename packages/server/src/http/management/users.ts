import { requestOrigin } from '../request-origin.js';
import { Type } from '@sinclair/typebox';
import { sendVerificationEmail } from '../../services/email-verification.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { userIdentitiesService } from '../../services/user-identities.js';
import { usersService, type UserView } from '../../services/users.js';
import { checkCurrentUserMetadataPatch, requireSubjectUnless } from './current-user.js';
import { secondaryUserId } from './secondary-token.js';
import { ManagementError } from './errors.js';
import { ERROR_RESPONSES, FieldsQuery, IdParams, NO_CONTENT_RESPONSES, PaginationQuery, listResponseSchema, nullable } from './schemas.js';
import { listHandler } from './resource-handlers.js';
import { userDeleted } from './log-events.js';

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
  verify_email: Type.Optional(Type.Boolean({ description: 'true: send the user a verification e-mail (on create, or when a PATCH changes the address).' })),
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

const Identities = Type.Array(
  Type.Object({
    connection: Type.String(),
    provider: Type.String(),
    user_id: Type.String(),
    isSocial: Type.Boolean(),
    profileData: Type.Optional(Type.Object({}, { additionalProperties: true })),
  }),
);

const LinkBody = Type.Union(
  [
    Type.Object(
      { link_with: Type.String({ minLength: 1, maxLength: 8192, description: 'The secondary account’s ID token (RS256, this issuer, issued to the caller’s application).' }) },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        provider: Type.String({ minLength: 1, maxLength: 64, description: 'Provider of the secondary account (e.g. auth0, email).' }),
        user_id: Type.String({ minLength: 1, maxLength: 255, description: 'Id of the secondary account without the provider prefix.' }),
        connection_id: Type.Optional(Type.String({ maxLength: 64, description: 'Accepted; the secondary account names its own connection.' })),
      },
      { additionalProperties: false },
    ),
  ],
  { description: 'Either link_with (a current-user token’s way) or provider and user_id (administrators).' },
);

const IdentityParams = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 300, description: 'Primary user id.' }),
    provider: Type.String({ minLength: 1, maxLength: 64, description: 'Provider of the linked identity.' }),
    user_id: Type.String({ minLength: 1, maxLength: 255, description: 'Id of the linked identity.' }),
  },
  { additionalProperties: false },
);

const { password: _password, verify_email: _verifyEmail, ...shown } = credentials;
const User = Type.Object(
  {
    user_id: Type.String(),
    ...shown,
    ...Type.Partial(Type.Object(profile)).properties,
    email_verified: Type.Boolean(),
    blocked: Type.Boolean(),
    identities: Identities,
    user_metadata: Type.Object({}, { additionalProperties: true }),
    app_metadata: Type.Object({}, { additionalProperties: true }),
    logins_count: Type.Integer(),
    last_login: Type.Optional(Type.String()),
    last_ip: Type.Optional(Type.String()),
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
    q: Type.Optional(Type.String({ maxLength: 2000, description: 'Search query in the platform\'s user-search syntax (v3), e.g. email:"jane@example.com" OR name:jan*.' })),
    search_engine: Type.Optional(Type.String({ description: 'Search engine version (v3 syntax whatever the value).' })),
    sort: Type.Optional(Type.String({ description: 'field:1 (ascending) or field:-1 (descending): created_at, updated_at, last_login, logins_count, email, name, user_id.' })),
    primary_order: Type.Optional(Type.Boolean({ description: 'Accepted; the order is always deterministic.' })),
  },
  { additionalProperties: false },
);

/** `verify_email: true`: the link that verifies the user's (new) address, unless it is verified already. */
async function sendUserVerification(registry: Registry, user: UserView): Promise<void> {
  if (!user.email || user.email_verified) return;
  const connection = user.identities[0]?.connection;
  await sendVerificationEmail({ verifications: registry.emailVerifications, notifier: registry.notifier, events: registry.events }, { userId: user.user_id, email: user.email, connection });
}

export function usersRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = usersService(registry);
    const identities = userIdentitiesService(registry);
    const tags = ['users'];
    app.get(
      '/users',
      { config: { scopes: ['read:users'] }, schema: { tags, summary: 'List users', querystring: ListQuery, response: { 200: listResponseSchema('users', User), ...ERROR_RESPONSES } } },
      listHandler('users', (window, { connection, q, sort }) =>
        service.list(window, { ...(connection ? { connection } : {}), ...(q === undefined ? {} : { q }), ...(sort === undefined ? {} : { sort }) }),
      ),
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
        const { verify_email: verify, ...input } = request.body;
        const user = await service.create(input);
        if (verify === true) await sendUserVerification(registry, user);
        return reply.code(201).send(user);
      },
    );
    app.get(
      '/users/:id',
      {
        config: { scopes: ['read:users', 'read:current_user'] },
        schema: { tags, summary: 'Get a user (a read:current_user token: only its own user)', params: UserIdParams, querystring: Type.Object(FieldsQuery, { additionalProperties: false }), response: { 200: User, ...ERROR_RESPONSES } },
      },
      async (request) => {
        requireSubjectUnless(request, 'read:users', request.params.id);
        return service.get(request.params.id);
      },
    );
    app.patch(
      '/users/:id',
      {
        config: { scopes: ['update:users', 'update:current_user_metadata', 'create:current_user_metadata', 'delete:current_user_metadata'] },
        schema: { tags, summary: 'Update a user (a current_user_metadata token: only its own user_metadata)', params: UserIdParams, body: UpdateBody, response: { 200: User, ...ERROR_RESPONSES } },
      },
      async (request) => {
        if (requireSubjectUnless(request, 'update:users', request.params.id) === 'self') {
          checkCurrentUserMetadataPatch(request, (await service.get(request.params.id)).user_metadata, request.body);
        }
        const { verify_email: verify, ...patch } = request.body;
        const user = await service.update(request.params.id, patch);
        if (patch.password !== undefined && user.identities[0]) {
          registry.actionTriggers.lifecycle.postChangePassword(user, { connection: { name: user.identities[0].connection, strategy: 'auth0' }, origin: requestOrigin(request) });
        }
        // Changing the address resets email_verified; verify_email asks for a link to the new one.
        if (verify === true && patch.email !== undefined) await sendUserVerification(registry, user);
        return user;
      },
    );
    app.post(
      '/users/:id/identities',
      {
        config: { scopes: ['update:users', 'update:current_user_identities'] },
        schema: { tags, summary: 'Link a secondary account into the user', params: UserIdParams, body: LinkBody, response: { 201: Identities, ...ERROR_RESPONSES } },
      },
      async (request, reply) => {
        const body = request.body;
        const acting = requireSubjectUnless(request, 'update:users', request.params.id);
        if (!('link_with' in body) && acting === 'self') {
          throw new ManagementError(403, 'A current-user token links accounts only with link_with (the secondary ID token).', 'insufficient_scope');
        }
        const secondary = 'link_with' in body ? await secondaryUserId(registry, body.link_with, request.auth?.azp) : `${body.provider}|${body.user_id}`;
        return reply.code(201).send(await identities.link(request.params.id, secondary));
      },
    );
    app.delete(
      '/users/:id/identities/:provider/:user_id',
      {
        config: { scopes: ['update:users', 'update:current_user_identities'] },
        schema: { tags, summary: 'Unlink an identity from the user', params: IdentityParams, response: { 200: Identities, ...ERROR_RESPONSES } },
      },
      async (request) => {
        requireSubjectUnless(request, 'update:users', request.params.id);
        return identities.unlink(request.params.id, request.params.provider, request.params.user_id);
      },
    );
    app.delete(
      '/users/:id',
      { config: { scopes: ['delete:users'] }, schema: { tags, summary: 'Delete a user', params: UserIdParams, response: NO_CONTENT_RESPONSES } },
      // Not the shared delete handler: the log's `du` needs the request (who deleted) and whom it removed.
      async (request, reply) => {
        const removed = await service.remove(request.params.id);
        if (removed) registry.events.record(userDeleted(request, request.params.id, removed));
        return reply.code(204).send(null);
      },
    );
  };
}
