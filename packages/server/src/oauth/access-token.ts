import { errors as joseErrors, type JWTPayload } from 'jose';
import { verifyTenantJwt } from '../keys/verify-jwt.js';
import type { SigningKeys } from '../keys/signing-keys.js';
import { OAuthError } from './errors.js';
import { isCompactJwe, type OpaqueTokenCodec } from './opaque-access-token.js';
import { verifiedTokenCache } from './verified-tokens.js';
import { isStorageUnavailable } from '../storage/unavailable.js';

/** RFC 6750 3.1: a bad bearer token is 401 with a challenge that names the error. */
export class InvalidToken extends OAuthError {
  constructor(description: string) {
    super('invalid_token', description, 401, {
      'www-authenticate': `Bearer realm="latchkey", error="invalid_token", error_description="${description.replaceAll('"', "'")}"`,
    });
  }
}

/** A request without any bearer token gets a bare challenge (RFC 6750 3.1: no error code). */
export class MissingToken extends OAuthError {
  constructor() {
    super('invalid_request', 'Missing access token.', 401, { 'www-authenticate': 'Bearer realm="latchkey"' });
  }
}

export interface AccessTokenVerifierDeps {
  keys: SigningKeys;
  issuerClaim: string;
  audience: string;
  /** Opens the opaque (JWE) access tokens issued without an API audience. */
  opaqueTokens: OpaqueTokenCodec;
  nowSeconds?: () => number;
}

/** RFC 6750 3.1: a request that carries its token in more than one way is malformed (400). */
export class AmbiguousToken extends OAuthError {
  constructor() {
    const description = 'The access token was sent both in the Authorization header and in the query: send it once.';
    super('invalid_request', description, 400, {
      'www-authenticate': `Bearer realm="latchkey", error="invalid_request", error_description="${description}"`,
    });
  }
}

/**
 * The bearer token a request presents (RFC 6750 2): the Authorization header, or, where the endpoint allows it, the
 * `access_token` query parameter (2.3). The query is for clients that cannot set headers; both at once is refused.
 */
export function presentedToken(authorization: string | undefined, queryToken?: string): string {
  if (queryToken !== undefined) {
    if (authorization !== undefined) throw new AmbiguousToken();
    return queryToken;
  }
  if (!authorization) throw new MissingToken();
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match?.[1]) throw new InvalidToken('Malformed Authorization header: expected Bearer and a token.');
  return match[1];
}

/** The same leeway as the JWT checks below. */
const CLOCK_TOLERANCE_SECONDS = 5;

/** Our own opaque token: the seal proves who made it; issuer, audience and expiry are still checked. */
function openOpaque(deps: AccessTokenVerifierDeps, token: string): JWTPayload & { sub: string } {
  const claims = deps.opaqueTokens.open(token);
  if (!claims) throw new InvalidToken('The access token is invalid.');
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (claims.iss !== deps.issuerClaim || typeof claims.sub !== 'string' || typeof claims.exp !== 'number') {
    throw new InvalidToken('The access token is invalid.');
  }
  if (!audiences.includes(deps.audience)) throw new InvalidToken('The access token is not valid for this endpoint.');
  const now = deps.nowSeconds?.() ?? Date.now() / 1000;
  if (claims.exp <= now - CLOCK_TOLERANCE_SECONDS) throw new InvalidToken('The access token expired.');
  return claims as JWTPayload & { sub: string };
}

/**
 * Verifies a user access token for one audience (e.g. `/userinfo`): an opaque token of ours, or an RS256 JWT of
 * the tenant's keys; issuer, audience and expiry either way.
 */
export function accessTokenVerifier(deps: AccessTokenVerifierDeps) {
  // On the deployment's clock, so a token stops being served from here exactly when its checks would refuse it.
  const verified = verifiedTokenCache<JWTPayload & { sub: string }>(deps.nowSeconds ? { nowSeconds: deps.nowSeconds } : {});
  deps.keys.onKeysChanged(() => verified.clear());
  return async function verify(token: string): Promise<JWTPayload & { sub: string }> {
    const known = verified.get(token);
    if (known) return known;
    if (isCompactJwe(token)) {
      // Opening costs a decipher set-up per call; an application polling with one token pays for it once.
      const claims = openOpaque(deps, token);
      verified.set(token, claims);
      return claims;
    }
    try {
      const payload = await verifyTenantJwt(deps.keys, token, { issuer: deps.issuerClaim, audience: deps.audience, clockTolerance: CLOCK_TOLERANCE_SECONDS });
      if (typeof payload.sub !== 'string') throw new InvalidToken('The access token has no subject.');
      const claims = payload as JWTPayload & { sub: string };
      verified.set(token, claims);
      return claims;
    } catch (error) {
      // Keys that could not be read are no verdict on the token: the outage is answered 503, not 401.
      if (error instanceof InvalidToken || isStorageUnavailable(error)) throw error;
      if (error instanceof joseErrors.JWTExpired) throw new InvalidToken('The access token expired.');
      if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'aud') {
        throw new InvalidToken('The access token is not valid for this endpoint.');
      }
      throw new InvalidToken('The access token is invalid.');
    }
  };
}
