import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { RESPONSE_MODES, RESPONSE_TYPES } from '../../oauth/authorize/request.js';
import { GRANTS } from '../../oauth/grants/registry.js';
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
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/oauth/token`,
          userinfo_endpoint: `${base}/userinfo`,
          jwks_uri: `${base}/.well-known/jwks.json`,
          revocation_endpoint: `${base}/oauth/revoke`,
          end_session_endpoint: `${base}/oidc/logout`,
          scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
          response_types_supported: [...RESPONSE_TYPES],
          response_modes_supported: [...RESPONSE_MODES],
          grant_types_supported: [...GRANTS.keys(), 'implicit'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'tls_client_auth', 'self_signed_tls_client_auth', 'none'],
          token_endpoint_auth_signing_alg_values_supported: ['RS256', 'RS384', 'PS256'],
          tls_client_certificate_bound_access_tokens: true,
          revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'tls_client_auth', 'self_signed_tls_client_auth', 'none'],
          id_token_signing_alg_values_supported: ['RS256', 'HS256'],
          subject_types_supported: ['public'],
          claims_supported: ['sub', 'iss', 'aud', 'azp', 'exp', 'iat', 'auth_time', 'nonce', 'sid', 'at_hash', 'c_hash', 'name', 'nickname', 'picture', 'given_name', 'family_name', 'updated_at', 'email', 'email_verified'],
          request_parameter_supported: false,
          request_uri_parameter_supported: false,
          claims_parameter_supported: false,
        };
      },
    );
  };
}
