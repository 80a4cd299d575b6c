import { errors as joseErrors, type JWTPayload } from 'jose';
import type { SigningKeys } from '../../keys/signing-keys.js';
import { UnknownSigningKey, verifyTenantJwt } from '../../keys/verify-jwt.js';
import { unauthorized } from '../management/errors.js';

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
      if (error instanceof joseErrors.JWTExpired) throw unauthorized('Expired token received for JSON Web Token validation');
      if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof UnknownSigningKey) {
        throw unauthorized('Invalid signature received for JSON Web Token validation');
      }
      throw unauthorized('Invalid token');
    }
    if (typeof payload.sub !== 'string') throw unauthorized('Invalid token');
    const scope = typeof payload.scope === 'string' ? payload.scope : '';
    return {
      sub: payload.sub,
      azp: typeof payload.azp === 'string' ? payload.azp : undefined,
      scopes: new Set(scope.split(' ').filter(Boolean)),
      claims: payload,
    };
  };
}
