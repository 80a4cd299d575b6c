import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { accessTokenVerifier, InvalidToken } from '../../oauth/access-token.js';
import { userinfoClaims } from '../../oauth/userinfo.js';
import type { Registry } from '../../registry.js';

const Profile = Type.Object(
  {
    sub: Type.String(),
    nickname: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    picture: Type.Optional(Type.String()),
    given_name: Type.Optional(Type.String()),
    family_name: Type.Optional(Type.String()),
    updated_at: Type.Optional(Type.String({ description: 'ISO 8601' })),
    email: Type.Optional(Type.String()),
    email_verified: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** `GET`/`POST /userinfo` (OIDC Core 5.3) with a bearer access token whose audience includes `/userinfo`. */
export function userinfoRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const verify = accessTokenVerifier({ keys: registry.keys, issuerClaim: registry.issuerClaim, audience: `${registry.issuer}/userinfo` });

  async function answer(request: FastifyRequest) {
    const claims = await verify(request.headers.authorization);
    const record = await registry.storage.users.get(registry.tenantId, claims.sub);
    if (!record || record.data.blocked) throw new InvalidToken('The user of this access token no longer exists or is blocked.');
    return userinfoClaims(record.id, { ...record.data, updated_at: record.columns.updated_at }, typeof claims.scope === 'string' ? claims.scope : '');
  }

  return async (app) => {
    const schema = {
      tags: ['authentication'],
      summary: 'User profile of an access token',
      security: [{ bearerAuth: [] }],
      response: { 200: Profile },
    };
    app.get('/userinfo', { schema }, async (request) => answer(request));
    app.post('/userinfo', { schema: { ...schema, summary: 'User profile of an access token (POST)' } }, async (request) => answer(request));
  };
}
