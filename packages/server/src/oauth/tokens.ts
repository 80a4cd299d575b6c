import { randomId } from '../crypto/random.js';
import { signRs256 } from '../crypto/rsa-signer.js';
import type { SigningKeys } from '../keys/signing-keys.js';

export interface AccessTokenClaims {
  sub: string;
  aud: string | string[];
  azp: string;
  scope: string;
  gty?: string;
  /** RFC 8705: the token works only with the client certificate of this SHA-256 thumbprint. */
  cnf?: { 'x5t#S256': string };
}

export interface TokenIssuerDeps {
  keys: SigningKeys;
  /** The `iss` claim: the public base URL with a trailing slash. */
  issuerClaim: string;
  now: () => Date;
}

function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Signs RS256 access tokens (compact JWS, header `{alg, typ, kid}`) with the tenant's current key. */
export function tokenIssuer(deps: TokenIssuerDeps) {
  // The encoded header only depends on the key id.
  const headers = new Map<string, string>();
  return {
    async accessToken(claims: AccessTokenClaims, lifetimeSeconds: number): Promise<string> {
      const { kid, privateKey } = await deps.keys.current();
      let header = headers.get(kid);
      if (header === undefined) {
        header = base64urlJson({ alg: 'RS256', typ: 'JWT', kid });
        headers.set(kid, header);
      }
      const iat = Math.floor(deps.now().getTime() / 1000);
      const payload = base64urlJson({ ...claims, iss: deps.issuerClaim, iat, exp: iat + lifetimeSeconds, jti: randomId(24) });
      const signingInput = `${header}.${payload}`;
      const signature = await signRs256(Buffer.from(signingInput), privateKey);
      return `${signingInput}.${signature.toString('base64url')}`;
    },
  };
}

export type TokenIssuer = ReturnType<typeof tokenIssuer>;
