import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { accessTokenVerifier, InvalidToken, presentedToken } from '../../oauth/access-token.js';
import { safeEqual } from '../../crypto/handles.js';
import { GRANT_ID_CLAIM } from '../../oauth/grant-revocations.js';
import { forwardedCertificate } from '../../oauth/mtls.js';
import { userinfoClaims } from '../../oauth/userinfo.js';
import type { Registry } from '../../registry.js';
import { clientTransport } from './client-transport.js';

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

/** RFC 6750 2.3: clients that cannot set a header (the platform's Passport strategy) send the token in the query. */
const TokenQuery = Type.Object({ access_token: Type.Optional(Type.String({ description: 'The access token, when not sent in the Authorization header.' })) });

/**
 * RFC 8705 3: a certificate-bound token is honoured only with the same client certificate, forwarded by the
 * edge; a stolen bound token is useless without the client's private key.
 */
function requireBoundCertificate(claims: Record<string, unknown>, request: FastifyRequest, edgeApiKey: string | undefined) {
  const bound = (claims.cnf as Record<string, unknown> | undefined)?.['x5t#S256'];
  if (typeof bound !== 'string') return;
  const edge = clientTransport(request).edge;
  let presented: string | undefined;
  try {
    presented = edge ? forwardedCertificate(edge, edgeApiKey)?.thumbprint : undefined;
  } catch {
    presented = undefined;
  }
  if (presented === undefined || !safeEqual(presented, bound)) throw new InvalidToken('This access token is bound to a client certificate that was not presented.');
}

/**
 * `GET`/`POST /userinfo` (OIDC Core 5.3) with a bearer access token whose audience includes `/userinfo`, in the
 * Authorization header or (GET only) the `access_token` query parameter. A token of a revoked grant is refused.
 */
export function userinfoRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const verify = accessTokenVerifier({
    keys: registry.keys,
    issuerClaim: registry.issuerClaim,
    audience: `${registry.issuer}/userinfo`,
    opaqueTokens: registry.opaqueTokens,
    nowSeconds: () => registry.now().getTime() / 1000,
  });

  async function answer(request: FastifyRequest, queryToken?: string) {
    const claims = await verify(presentedToken(request.headers.authorization, queryToken));
    requireBoundCertificate(claims, request, registry.config.edgeApiKey);
    const grantId = claims[GRANT_ID_CLAIM];
    // Tokens issued before grants were named in them carry none, and cannot be checked.
    if (typeof grantId === 'string' && grantId !== '' && (await registry.grantRevocations.isRevoked(grantId))) {
      throw new InvalidToken('The grant of this access token was revoked.');
    }
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
    app.get('/userinfo', { schema: { ...schema, querystring: TokenQuery } }, async (request, reply) => {
      const queryToken = request.query.access_token;
      const profile = await answer(request, queryToken);
      // RFC 6750 2.3: the answer to a token in the URL must not be kept by shared caches.
      if (queryToken !== undefined) reply.header('cache-control', 'private');
      return profile;
    });
    app.post('/userinfo', { schema: { ...schema, summary: 'User profile of an access token (POST)' } }, async (request) => answer(request));
  };
}
