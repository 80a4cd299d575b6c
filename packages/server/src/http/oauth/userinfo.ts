import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { accessTokenVerifier, InvalidToken } from '../../oauth/access-token.js';
import { safeEqual } from '../../crypto/handles.js';
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

/** `GET`/`POST /userinfo` (OIDC Core 5.3) with a bearer access token whose audience includes `/userinfo`. */
export function userinfoRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const verify = accessTokenVerifier({
    keys: registry.keys,
    issuerClaim: registry.issuerClaim,
    audience: `${registry.issuer}/userinfo`,
    opaqueTokens: registry.opaqueTokens,
    nowSeconds: () => registry.now().getTime() / 1000,
  });

  async function answer(request: FastifyRequest) {
    const claims = await verify(request.headers.authorization);
    requireBoundCertificate(claims, request, registry.config.edgeApiKey);
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
