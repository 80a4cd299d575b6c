import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { userAccess, type AccessPage } from '../../oauth/user-access.js';
import { ManagementError } from './errors.js';
import { CheckpointQuery, checkpointResponse, ERROR_RESPONSES, IdParams, pageWindow } from './schemas.js';

const Device = Type.Object(
  {
    initial_ip: Type.Optional(Type.String({ description: 'The address the login came from.' })),
    initial_user_agent: Type.Optional(Type.String({ description: 'The browser the login came from.' })),
  },
  { additionalProperties: false },
);
const Session = Type.Object(
  {
    id: Type.String({ description: 'The session id: the `sid` of its ID tokens and logout tokens.' }),
    user_id: Type.String(),
    created_at: Type.String(),
    updated_at: Type.String(),
    authenticated_at: Type.String({ description: 'The last interactive login.' }),
    idle_expires_at: Type.String({ description: 'When it ends unless used again (the tenant\u2019s idle session lifetime).' }),
    expires_at: Type.String({ description: 'When it ends whatever happens (the tenant\u2019s session lifetime).' }),
    last_interacted_at: Type.String(),
    device: Device,
    clients: Type.Array(Type.Object({ client_id: Type.String() }), { description: 'The applications it signed in to.' }),
    authentication: Type.Object({ methods: Type.Array(Type.Object({ name: Type.String() })) }),
  },
  { additionalProperties: false },
);
const RefreshToken = Type.Object(
  {
    id: Type.String({ description: 'The refresh token id (its grant\u2019s; never the token or a part of it).' }),
    user_id: Type.String(),
    created_at: Type.String(),
    idle_expires_at: Type.Union([Type.String(), Type.Null()], { description: 'When it stops working unless exchanged again (null: never, as its application\u2019s settings say).' }),
    expires_at: Type.Optional(Type.String({ description: 'When it stops working whatever its use, if its application\u2019s settings give it an end.' })),
    client_id: Type.String(),
    session_id: Type.Union([Type.String(), Type.Null()], { description: 'The session it was issued in (null: not in a browser login).' }),
    rotating: Type.Boolean({ description: 'Whether each exchange replaces the token (its application\u2019s rotation setting when it was issued).' }),
    resource_servers: Type.Array(Type.Object({ audience: Type.String(), scopes: Type.String() })),
    last_exchanged_at: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object(
  {
    include_totals: Type.Optional(Type.Boolean({ description: 'Accepted; the answer is always `{<list>, next?}`.' })),
    ...CheckpointQuery,
  },
  { additionalProperties: false },
);
const UserParams = IdParams('ID of the user, e.g. auth0|abc (the | may be URL-encoded as %7C).', 300);
const SessionParams = IdParams('ID of the session.', 50);
const TokenParams = IdParams('ID of the refresh token.', 100);
/** The platform accepts these deletions for processing: 202 with an empty body. */
const ACCEPTED = { 202: Type.Unsafe<undefined>({ description: 'Accepted (no body).' }), ...ERROR_RESPONSES } as const;

const checkpointList = (key: string, item: typeof Session | typeof RefreshToken) =>
  Type.Object({ [key]: Type.Array(item), next: Type.Optional(Type.String({ description: 'The `from` of the next page, while more follow.' })) }, { additionalProperties: false });

/** Checkpoint paging (`from`/`take`, 50 by default), as the platform pages these lists. */
const windowOf = (query: { from?: string; take?: number }) => pageWindow({ ...(query.from !== undefined ? { from: query.from } : {}), take: query.take ?? 50 });
const answer = <T>(key: string, page: AccessPage<T>) => checkpointResponse(key, page.items, page.end, page.total);

/**
 * Users' sessions and refresh tokens, as the platform's Management API has them: `/users/{id}/sessions`,
 * `/users/{id}/refresh-tokens`, `/sessions/{id}` (and `/revoke`) and `/refresh-tokens/{id}`. Deletions answer 202,
 * an unknown session or token among them included, as the platform's do; reads of unknown ones answer 404.
 */
export function userSessionsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const access = userAccess({
      storage: registry.storage,
      tenantId: registry.tenantId,
      issuer: registry.issuer,
      now: registry.now,
      sessionLifetimes: registry.sessions.lifetimes,
      sessions: registry.sessions,
    });
    const userTags = ['users'];

    app.get(
      '/users/:id/sessions',
      {
        config: { scopes: ['read:sessions'] },
        schema: { tags: userTags, summary: 'List a user\u2019s login sessions (from/take)', params: UserParams, querystring: ListQuery, response: { 200: checkpointList('sessions', Session), ...ERROR_RESPONSES } },
      },
      async (request) => answer('sessions', await access.sessionsOf(request.params.id, windowOf(request.query))),
    );
    app.delete(
      '/users/:id/sessions',
      { config: { scopes: ['delete:sessions'] }, schema: { tags: userTags, summary: 'End all of a user\u2019s login sessions', params: UserParams, response: ACCEPTED } },
      async (request, reply) => {
        await access.endSessionsOf(request.params.id);
        return reply.code(202).send(undefined);
      },
    );
    app.get(
      '/users/:id/refresh-tokens',
      {
        config: { scopes: ['read:refresh_tokens'] },
        schema: { tags: userTags, summary: 'List a user\u2019s refresh tokens (from/take)', params: UserParams, querystring: ListQuery, response: { 200: checkpointList('tokens', RefreshToken), ...ERROR_RESPONSES } },
      },
      async (request) => answer('tokens', await access.refreshTokensOf(request.params.id, windowOf(request.query))),
    );
    app.delete(
      '/users/:id/refresh-tokens',
      { config: { scopes: ['delete:refresh_tokens'] }, schema: { tags: userTags, summary: 'Revoke all of a user\u2019s refresh tokens', params: UserParams, response: ACCEPTED } },
      async (request, reply) => {
        await access.revokeRefreshTokensOf(request.params.id);
        return reply.code(202).send(undefined);
      },
    );

    app.get(
      '/sessions/:id',
      { config: { scopes: ['read:sessions'] }, schema: { tags: ['sessions'], summary: 'Get a login session', params: SessionParams, response: { 200: Session, ...ERROR_RESPONSES } } },
      async (request) => access.session(request.params.id),
    );
    app.delete(
      '/sessions/:id',
      { config: { scopes: ['delete:sessions'] }, schema: { tags: ['sessions'], summary: 'End a login session (its refresh tokens go on)', params: SessionParams, response: ACCEPTED } },
      async (request, reply) => {
        await access.endSession(request.params.id);
        return reply.code(202).send(undefined);
      },
    );
    app.post(
      '/sessions/:id/revoke',
      {
        config: { scopes: ['delete:sessions'] },
        schema: { tags: ['sessions'], summary: 'End a login session and revoke the refresh tokens issued in it', params: SessionParams, response: ACCEPTED },
      },
      async (request, reply) => {
        // It ends refresh tokens too, so it takes both scopes (the platform's security requirement lists both).
        if (!request.auth?.scopes.has('delete:refresh_tokens')) {
          throw new ManagementError(403, 'Insufficient scope, expected all of: delete:sessions,delete:refresh_tokens', 'insufficient_scope');
        }
        await access.revokeSession(request.params.id);
        return reply.code(202).send(undefined);
      },
    );

    app.get(
      '/refresh-tokens/:id',
      { config: { scopes: ['read:refresh_tokens'] }, schema: { tags: ['refresh-tokens'], summary: 'Get a refresh token', params: TokenParams, response: { 200: RefreshToken, ...ERROR_RESPONSES } } },
      async (request) => access.refreshToken(request.params.id),
    );
    app.delete(
      '/refresh-tokens/:id',
      { config: { scopes: ['delete:refresh_tokens'] }, schema: { tags: ['refresh-tokens'], summary: 'Revoke a refresh token (its grant)', params: TokenParams, response: ACCEPTED } },
      async (request, reply) => {
        await access.revokeRefreshToken(request.params.id);
        return reply.code(202).send(undefined);
      },
    );
  };
}
