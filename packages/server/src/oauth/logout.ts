import { decodeJwt } from 'jose';
import { verifyTenantJwt } from '../keys/verify-jwt.js';
import type { SigningKeys } from '../keys/signing-keys.js';
import type { OAuthConfig } from '../services/config-cache.js';

export type LogoutTarget = { ok: true; url: string | undefined } | { ok: false; description: string };

/**
 * `returnTo` of `/v2/logout` (and `post_logout_redirect_uri` of `/oidc/logout`): with a client, it must be one
 * of that application's Allowed Logout URLs; without one, one of the tenant's. Exact match; no match, no redirect.
 */
export async function logoutTarget(
  returnTo: string | undefined,
  clientId: string | undefined,
  deps: { config: OAuthConfig; tenantLogoutUrls: () => Promise<readonly string[]> },
): Promise<LogoutTarget> {
  if (returnTo === undefined) return { ok: true, url: undefined };
  if (clientId !== undefined) {
    const client = await deps.config.client(clientId);
    if (!client) return { ok: false, description: 'Unknown client: the client_id is not registered.' };
    if (client.data.allowed_logout_urls.includes(returnTo)) return { ok: true, url: returnTo };
    return { ok: false, description: `The "returnTo" URL is not in the "Allowed Logout URLs" of the application.` };
  }
  if ((await deps.tenantLogoutUrls()).includes(returnTo)) return { ok: true, url: returnTo };
  return { ok: false, description: `The "returnTo" URL is not in the tenant's "Allowed Logout URLs".` };
}

export interface IdTokenHint {
  clientId: string;
  sid: string | undefined;
}

/**
 * An `id_token_hint` names the application and the session to end. Its signature and issuer are checked; its
 * expiry is not (OIDC RP-Initiated Logout 1.0: an expired ID token is still a good hint).
 */
export async function readIdTokenHint(token: string, deps: { keys: SigningKeys; issuerClaim: string }): Promise<IdTokenHint | undefined> {
  try {
    const payload = await verifyTenantJwt(deps.keys, token, {
      issuer: deps.issuerClaim,
      currentDate: new Date((decodeJwt(token).iat ?? 0) * 1000 + 1000),
    });
    const audience = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
    if (typeof audience !== 'string') return undefined;
    return { clientId: audience, sid: typeof payload.sid === 'string' ? payload.sid : undefined };
  } catch {
    return undefined;
  }
}
