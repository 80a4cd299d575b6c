import { errors as joseErrors, type JWTPayload } from 'jose';
import type { SigningKeys } from '../../keys/signing-keys.js';
import { UnknownSigningKey, verifyTenantJwt } from '../../keys/verify-jwt.js';
import { GRANT_ID_CLAIM, type GrantRevocations } from '../../oauth/grant-revocations.js';
import { unauthorized } from './errors.js';
import { isStorageUnavailable } from '../../storage/unavailable.js';

export interface BearerAuth {
  sub: string;
  azp: string | undefined;
  scopes: ReadonlySet<string>;
  claims: JWTPayload;
}

export interface BearerVerifierDeps {
  keys: SigningKeys;
  issuerClaim: string;
  audience: string;
  /** Refuses users' tokens whose grant was revoked (a replayed code or refresh token). */
  grantRevocations: Pick<GrantRevocations, 'isRevoked'>;
}

/** Verifies Management API bearer tokens: RS256 by the tenant's keys, issuer, audience, expiry with leeway. */
export function bearerVerifier(deps: BearerVerifierDeps) {
  return async function verify(authorization: string | undefined): Promise<BearerAuth> {
    if (!authorization) throw unauthorized('Missing authentication');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw unauthorized('Bad HTTP authentication header format');
    let payload: JWTPayload;
    try {
      payload = await verifyTenantJwt(deps.keys, match[1], { issuer: deps.issuerClaim, audience: deps.audience, clockTolerance: 5 });
    } catch (error) {
      // Keys that could not be read are no verdict on the token: the outage is answered 503, not 401.
      if (isStorageUnavailable(error)) throw error;
      if (error instanceof joseErrors.JWTExpired) throw unauthorized('Expired token received for JSON Web Token validation');
      if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof UnknownSigningKey) {
        throw unauthorized('Invalid signature received for JSON Web Token validation');
      }
      throw unauthorized('Invalid token');
    }
    if (typeof payload.sub !== 'string') throw unauthorized('Invalid token');
    const grantId = payload[GRANT_ID_CLAIM];
    if (typeof grantId === 'string' && grantId !== '' && (await deps.grantRevocations.isRevoked(grantId))) throw unauthorized('Revoked token');
    const scope = typeof payload.scope === 'string' ? payload.scope : '';
    return {
      sub: payload.sub,
      azp: typeof payload.azp === 'string' ? payload.azp : undefined,
      scopes: new Set(scope.split(' ').filter(Boolean)),
      claims: payload,
    };
  };
}
