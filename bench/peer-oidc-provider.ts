/**
 * The benchmark's peer: node-oidc-provider configured for the client-credentials grant with RS256 JWT access
 * tokens for one API (resource indicators). Configuration only; run as a child process by run.ts.
 * Env: PORT, PEER_JWK (private RSA JWK, shared by cluster workers).
 */
import Provider from 'oidc-provider';

export const PEER_CLIENT = { id: 'bench-client', secret: 'bench-client-secret-0123456789abcdef' };
export const PEER_AUDIENCE = 'https://api.bench.example/';

export async function startPeer(port: number, jwk: Record<string, unknown>) {
  const provider = new Provider(`http://localhost:${port}`, {
    clients: [
      {
        client_id: PEER_CLIENT.id,
        client_secret: PEER_CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_post',
        scope: 'read:things',
      },
    ],
    jwks: { keys: [{ ...jwk, alg: 'RS256', use: 'sig' }] },
    scopes: ['openid', 'read:things'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => PEER_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'read:things',
          audience: PEER_AUDIENCE,
          accessTokenTTL: 86_400,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  return new Promise<void>((resolve) => {
    provider.listen(port, '127.0.0.1', () => resolve());
  });
}
