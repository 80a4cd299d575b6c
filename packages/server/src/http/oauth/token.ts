import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { handleTokenRequest } from '../../oauth/token-request.js';
import type { Registry } from '../../registry.js';
import { clientTransport } from './client-transport.js';

const TokenRequest = Type.Object(
  {
    // Optional in the schema so that the protocol core answers a missing one with its own wording.
    grant_type: Type.Optional(Type.String({ description: 'The grant type, e.g. client_credentials.' })),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
    client_assertion: Type.Optional(Type.String({ maxLength: 16_384, description: 'private_key_jwt: a JWT signed with a registered key.' })),
    client_assertion_type: Type.Optional(Type.String({ description: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' })),
    audience: Type.Optional(Type.String({ description: 'Identifier of the API the token is for.' })),
    scope: Type.Optional(Type.String({ description: 'Space-separated scopes.' })),
  },
  // Grants declare their own parameters; the rest is tolerated and dropped (RFC 6749 3.2).
  { additionalProperties: true },
);

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  scope: Type.Optional(Type.String()),
  id_token: Type.Optional(Type.String()),
  refresh_token: Type.Optional(Type.String()),
  recovery_code: Type.Optional(Type.String({ description: 'The MFA recovery-code grant: the user\u2019s next recovery code.' })),
});

const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String(), mfa_token: Type.Optional(Type.String({ description: 'mfa_required: the token for /mfa/* and the MFA grants.' })) });

export function tokenRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const deps = {
      storage: registry.storage,
      config: registry.oauthConfig,
      tenantId: registry.tenantId,
      tokens: registry.tokens,
      clientAuth: registry.clientAuth,
      users: registry.userGrants,
      credentialsExchange: registry.actionTriggers.credentialsExchange,
    };
    for (const url of ['/oauth/token', '/oauth/token/']) {
      app.post(
        url,
        {
          schema: {
            tags: ['authentication'],
            summary: 'Token endpoint',
            hide: url.endsWith('/'),
            body: TokenRequest,
            response: { 200: TokenResponse, '4xx': OAuthErrorBody },
          },
        },
        async (request, reply) => {
          reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' });
          const issued = await handleTokenRequest(request.body, clientTransport(request), deps);
          // Only a grant the endpoint knows issues tokens, so the label takes a handful of values.
          registry.metrics.tokensIssued.inc({ grant_type: request.body.grant_type ?? '' });
          return issued;
        },
      );
    }
  };
}
