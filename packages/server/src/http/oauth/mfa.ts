import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { authenticateClient } from '../../oauth/client-auth.js';
import { accessTokenVerifier, InvalidToken } from '../../oauth/access-token.js';
import { AccessDenied, MalformedMfaToken } from '../../oauth/errors.js';
import { tokenHolder, type MfaApiHolder } from '../../oauth/mfa/mfa-api.js';
import { mfaApiIdentifier } from '../../oauth/mfa/mfa-audience.js';
import { splitScope } from '../../oauth/scopes.js';
import { clientCredentialsOf } from '../../oauth/token-request.js';
import type { Registry } from '../../registry.js';
import { clientTransport } from './client-transport.js';

const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });
const Authenticator = Type.Object({
  id: Type.String(),
  authenticator_type: Type.String(),
  active: Type.Boolean(),
  oob_channel: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
});
const field = (description: string, maxLength = 512) => Type.Optional(Type.String({ maxLength, description }));
const AssociateBody = Type.Object(
  {
    client_id: field('The application (must be the one the mfa_token was issued to).', 128),
    client_secret: field('Tolerated; the mfa_token is what authenticates the request.'),
    authenticator_types: Type.Array(Type.String({ maxLength: 32 }), { minItems: 1, maxItems: 2, description: '["otp"] or ["oob"].' }),
    oob_channels: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 2, description: '["sms"] or ["email"] (with oob).' })),
    phone_number: field('sms: the E.164 number codes go to.', 32),
    email: field('email: the address codes go to.', 300),
  },
  { additionalProperties: true },
);
const Associated = Type.Object({
  authenticator_type: Type.String(),
  secret: Type.Optional(Type.String()),
  barcode_uri: Type.Optional(Type.String()),
  oob_channel: Type.Optional(Type.String()),
  oob_code: Type.Optional(Type.String()),
  binding_method: Type.Optional(Type.String()),
  recovery_codes: Type.Optional(Type.Array(Type.String())),
  id: Type.Optional(Type.String()),
});
const ChallengeBody = Type.Object(
  {
    client_id: field('The application.', 128),
    client_secret: field('A confidential application\u2019s secret.'),
    client_assertion: field('private_key_jwt: a JWT signed with a registered key.', 16_384),
    client_assertion_type: field('urn:ietf:params:oauth:client-assertion-type:jwt-bearer'),
    mfa_token: Type.String({ minLength: 1, maxLength: 512, description: 'The token of the mfa_required answer.' }),
    challenge_type: field('"otp", "oob" or "otp oob" (the default).', 32),
    authenticator_id: field('The authenticator to challenge (from /mfa/authenticators).', 200),
    oob_channel: field('oob: "sms" or "email".', 32),
  },
  { additionalProperties: true },
);
const Challenge = Type.Object({ challenge_type: Type.String(), oob_code: Type.Optional(Type.String()), binding_method: Type.Optional(Type.String()) });

/** The mfa_token of `Authorization: Bearer` (how the platform's `/mfa/authenticators` and `/mfa/associate` take it). */
function bearer(request: FastifyRequest): string {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match?.[1]) throw new MalformedMfaToken();
  return match[1];
}

/**
 * The MFA API of the Authentication API (`/mfa/authenticators`, `/mfa/associate`, `/mfa/challenge`), after a
 * password grant answered `mfa_required`: the mfa_token is bearer (or body, for the challenge) and bound to the
 * application it was issued to; the grants that finish the sign-in are at `/oauth/token` (oauth/grants/mfa.ts).
 * Rate-limited per endpoint and address like the rest of the surface.
 */
export function mfaRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const { api, tokens } = registry.userGrants.mfa;
  const tags = ['authentication'];
  const origin = (request: FastifyRequest) => ({ ip: request.ip, userAgent: request.headers['user-agent'] });

  const verifyAccessToken = accessTokenVerifier({
    keys: registry.keys,
    issuerClaim: registry.issuerClaim,
    audience: mfaApiIdentifier(registry.issuer),
    opaqueTokens: registry.opaqueTokens,
    nowSeconds: () => registry.now().getTime() / 1000,
  });

  /**
   * Who calls: the bearer is an mfa_token (a random handle) or an access token for the MFA API (a JWT or an opaque
   * JWE, told apart by their dots), which must carry `scope`. The user of an access token must still exist unblocked.
   */
  async function holder(request: FastifyRequest, scope: 'read:authenticators' | 'remove:authenticators'): Promise<MfaApiHolder> {
    const token = bearer(request);
    if (!token.includes('.')) return tokenHolder(await tokens.read(token, undefined));
    const claims = await verifyAccessToken(token);
    if (!splitScope(typeof claims.scope === 'string' ? claims.scope : undefined).includes(scope)) throw new AccessDenied(`The access token lacks the ${scope} scope.`);
    const user = await registry.storage.users.get(registry.tenantId, claims.sub);
    if (!user || user.data.blocked) throw new InvalidToken('The user of this access token no longer exists or is blocked.');
    return { kind: 'access_token', userId: claims.sub, clientId: typeof claims.azp === 'string' ? claims.azp : '' };
  }

  return async (app) => {
    app.get(
      '/mfa/authenticators',
      { schema: { tags, summary: 'List the user\u2019s authenticators (Bearer mfa_token, or an MFA API access token with read:authenticators)', response: { 200: Type.Array(Authenticator), '4xx': OAuthErrorBody } } },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return api.list(await holder(request, 'read:authenticators'));
      },
    );
    app.delete(
      '/mfa/authenticators/:id',
      {
        schema: {
          tags,
          summary: 'Remove an authenticator (Bearer mfa_token: one not yet confirmed; Bearer MFA API access token with remove:authenticators: any)',
          params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
          response: { 204: Type.Null(), '4xx': OAuthErrorBody },
        },
      },
      async (request, reply) => {
        await api.remove(await holder(request, 'remove:authenticators'), request.params.id, origin(request));
        return reply.code(204).send(null);
      },
    );
    app.post(
      '/mfa/associate',
      { schema: { tags, summary: 'Enroll the user\u2019s first authenticator (Bearer mfa_token)', body: AssociateBody, response: { 200: Associated, '4xx': OAuthErrorBody } } },
      async (request, reply) => {
        const read = await tokens.read(bearer(request), request.body.client_id);
        reply.header('cache-control', 'no-store');
        return api.associate(read, request.body, origin(request));
      },
    );
    app.post(
      '/mfa/challenge',
      { schema: { tags, summary: 'Challenge an authenticator: send a code (oob) or ask for one (otp)', body: ChallengeBody, response: { 200: Challenge, '4xx': OAuthErrorBody } } },
      async (request, reply) => {
        const client = await authenticateClient(clientCredentialsOf(request.body, clientTransport(request)), registry.clientAuth);
        const read = await tokens.read(request.body.mfa_token, client.clientId);
        reply.header('cache-control', 'no-store');
        return api.challenge(read, request.body, origin(request));
      },
    );
  };
}
