import { SignJWT } from 'jose';
import { randomId } from '../crypto/random.js';
import type { SigningKeys } from '../keys/signing-keys.js';

export interface AccessTokenClaims {
  sub: string;
  aud: string | string[];
  azp: string;
  scope: string;
  gty?: string;
}

export interface TokenIssuerDeps {
  keys: SigningKeys;
  /** The `iss` claim: the public base URL with a trailing slash. */
  issuerClaim: string;
  now: () => Date;
}

/** Signs RS256 access tokens with the tenant's current key. */
export function tokenIssuer(deps: TokenIssuerDeps) {
  return {
    async accessToken(claims: AccessTokenClaims, lifetimeSeconds: number): Promise<string> {
      const { kid, key } = await deps.keys.current();
      const iat = Math.floor(deps.now().getTime() / 1000);
      return new SignJWT({ ...claims, iss: deps.issuerClaim, iat, exp: iat + lifetimeSeconds, jti: randomId(24) })
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid })
        .sign(key);
    },
  };
}

export type TokenIssuer = ReturnType<typeof tokenIssuer>;
