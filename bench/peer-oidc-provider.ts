/**
 * The benchmark's peer: node-oidc-provider (npm `oidc-provider`), configured (nothing copied) for the
 * client-credentials grant with RS256 JWT access tokens for one API through resource indicators (RFC 8707).
 * bench/server.ts starts it, once or per cluster worker; every worker signs with the same key (PEER_JWK).
 */
export const PEER_CLIENT = { id: 'bench-client', secret: 'bench-client-secret-0123456789abcdefghijkl' };
export const PEER_API = { identifier: 'https://api.bench.example/', scope: 'read:things write:things' };
export const PEER_TOKEN_PATH = '/oauth/token';
export const PEER_JWKS_PATH = '/jwks';

/** The form a client posts: the peer's equivalent of Latchkey's `audience` is `resource`. */
export const PEER_TOKEN_FORM = {
  grant_type: 'client_credentials',
  client_id: PEER_CLIENT.id,
  client_secret: PEER_CLIENT.secret,
  resource: PEER_API.identifier,
  scope: PEER_API.scope,
};

export async function startPeer(host: string, port: number, privateJwk: Record<string, unknown>): Promise<void> {
  // Imported here so that run.ts can read the constants above without loading the provider.
  const { default: Provider, errors } = await import('oidc-provider');
  const provider = new Provider(`http://${host}:${port}`, {
    clients: [
      {
        client_id: PEER_CLIENT.id,
        client_secret: PEER_CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_post',
        scope: PEER_API.scope,
      },
    ],
    jwks: { keys: [{ ...privateJwk, alg: 'RS256', use: 'sig' }] },
    scopes: PEER_API.scope.split(' '),
    routes: { token: PEER_TOKEN_PATH, jwks: PEER_JWKS_PATH },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => PEER_API.identifier,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => {
          if (resourceIndicator !== PEER_API.identifier) throw new errors.InvalidTarget();
          // accessTokenFormat 'jwt' with jwt.sign.alg RS256: the token is a JWS signed by the RS256 key above.
          return {
            scope: PEER_API.scope,
            audience: PEER_API.identifier,
            accessTokenTTL: 86_400,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  });
  await new Promise<void>((resolve, reject) => {
    const server = provider.listen(port, host, () => resolve());
    server.once('error', reject);
  });
}
