import { verifyTenantJwt } from '../../keys/verify-jwt.js';
import type { Registry } from '../../registry.js';
import { badRequest } from './errors.js';

/**
 * The user an account-linking `link_with` ID token names. It must be one of ours (RS256 by the tenant's keys,
 * this issuer, unexpired) and issued to the very application that calls: a token taken from another
 * application cannot link its user into the caller's.
 */
export async function secondaryUserId(registry: Pick<Registry, 'keys' | 'issuerClaim'>, idToken: string, callerClientId: string | undefined): Promise<string> {
  if (callerClientId === undefined) throw badRequest('The bearer token names no application (azp) to match the secondary token against.', 'invalid_secondary_token');
  try {
    const payload = await verifyTenantJwt(registry.keys, idToken, { issuer: registry.issuerClaim, audience: callerClientId });
    if (typeof payload.sub !== 'string') throw new Error('no subject');
    return payload.sub;
  } catch {
    throw badRequest('The secondary ID token is not valid: it must be an RS256 ID token of this issuer, for the calling application, unexpired.', 'invalid_secondary_token');
  }
}
