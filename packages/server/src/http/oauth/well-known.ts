import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';

const Jwk = Type.Object({ kid: Type.String(), kty: Type.String(), use: Type.String(), alg: Type.String(), n: Type.String(), e: Type.String() });

/** Discovery and the public keys. Both are public and cacheable by anyone. */
export function wellKnownRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/.well-known/jwks.json',
      { schema: { tags: ['authentication'], summary: 'JSON Web Key Set', response: { 200: Type.Object({ keys: Type.Array(Jwk) }) } } },
      async (_request, reply) => {
        reply.headers({ 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=300, stale-while-revalidate=60' });
        return registry.keys.jwks();
      },
    );

    app.get(
      '/.well-known/openid-configuration',
      { schema: { tags: ['authentication'], summary: 'OpenID Provider metadata' } },
      async (_request, reply) => {
        reply.headers({ 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=300' });
        const base = registry.issuer;
        return {
          issuer: registry.issuerClaim,
          jwks_uri: `${base}/.well-known/jwks.json`,
          token_endpoint: `${base}/oauth/token`,
          grant_types_supported: ['client_credentials'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          token_endpoint_auth_signing_alg_values_supported: ['RS256'],
          id_token_signing_alg_values_supported: ['RS256'],
          scopes_supported: [],
          response_types_supported: [],
          subject_types_supported: ['public'],
        };
      },
    );
  };
}
