import { randomBytes, timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from './deployment-secret.js';

/**
 * Generated client secrets carry 256 bits of entropy, so a keyed SHA-256 is enough to store them: no slow KDF
 * sits on the token path. The key comes from the deployment secret, so a stolen database alone does not allow
 * offline checks.
 */
export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url') + randomBytes(16).toString('base64url');
}

export function hashClientSecret(key: Buffer, secret: string): string {
  return hmacSha256(key, secret).toString('base64url');
}

export function verifyClientSecret(key: Buffer, presented: string, storedHash: string): boolean {
  const expected = Buffer.from(storedHash, 'base64url');
  const actual = hmacSha256(key, presented);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
