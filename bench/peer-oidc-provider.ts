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

/** The peer's user-flow setup: one confidential web client and one account, for refresh and userinfo. */
export const PEER_USER_CLIENT = { id: 'bench-web', secret: 'bench-web-secret-0123456789abcdefghijklmnop', callback: 'https://app.bench.example/callback' };
export const PEER_USERINFO_PATH = '/userinfo';

/**
 * node-oidc-provider configured for user flows: authorization code with refresh tokens rotated on every use
 * (as Latchkey does), opaque access tokens for its userinfo endpoint, and its development login (any account
 * id logs in) so the bench can obtain the first refresh tokens without a UI. The grant is given on the spot,
 * so no consent screen interrupts.
 */
export async function startPeerUsers(host: string, port: number, privateJwk: Record<string, unknown>): Promise<void> {
  const { default: Provider } = await import('oidc-provider');
  const claims = { sub: '', name: 'Bench User', nickname: 'bench-user', picture: 'https://example.com/p.png', updated_at: 0, email: 'bench-user@example.com', email_verified: true };
  const provider = new Provider(`http://${host}:${port}`, {
    clients: [
      {
        client_id: PEER_USER_CLIENT.id,
        client_secret: PEER_USER_CLIENT.secret,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [PEER_USER_CLIENT.callback],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [{ ...privateJwk, alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['bench-peer-cookie-key-0123456789abcdef'] },
    scopes: ['openid', 'offline_access', 'profile', 'email'],
    claims: { openid: ['sub'], profile: ['name', 'nickname', 'picture', 'updated_at'], email: ['email', 'email_verified'] },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ ...claims, sub: id }) }),
    loadExistingGrant: async (ctx: { oidc: { provider: { Grant: new (init: object) => { addOIDCScope(scope: string): void; save(): Promise<string> } }; client: { clientId: string }; session: { accountId: string } } }) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid offline_access profile email');
      await grant.save();
      return grant;
    },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    routes: { token: PEER_TOKEN_PATH, jwks: PEER_JWKS_PATH, userinfo: PEER_USERINFO_PATH },
    features: { devInteractions: { enabled: true } },
  });
  await new Promise<void>((resolve, reject) => {
    const server = provider.listen(port, host, () => resolve());
    server.once('error', reject);
  });
}
