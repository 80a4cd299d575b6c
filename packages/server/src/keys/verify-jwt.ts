import { jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import type { SigningKeys } from './signing-keys.js';

/** Raised when a JWT names a key id the tenant never published (or names none). */
export class UnknownSigningKey extends Error {}

/** Verifies an RS256 JWT against the tenant's published keys, choosing the key by the header's `kid`. */
export async function verifyTenantJwt(keys: SigningKeys, token: string, options: Omit<JWTVerifyOptions, 'algorithms'>): Promise<JWTPayload> {
  const { payload } = await jwtVerify(
    token,
    async (header) => {
      const key = header.kid ? await keys.verificationKey(header.kid) : undefined;
      if (!key) throw new UnknownSigningKey();
      return key;
    },
    { ...options, algorithms: ['RS256'] },
  );
  return payload;
}
