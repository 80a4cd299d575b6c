import { timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from './deployment-secret.js';
import { secureRandomBytes } from './random.js';

/**
 * Secret handles (session cookies, codes, refresh tokens, transaction cookies) are 256-bit random strings given
 * to the holder once; the database keeps only their keyed SHA-256, so a copy of the database cannot be replayed
 * against the service.
 */
export function newHandle(): string {
  return secureRandomBytes(32).toString('base64url');
}

export function handleId(key: Buffer, handle: string): string {
  return hmacSha256(key, handle).toString('base64url');
}

/** Constant-time equality of two strings (lengths are not secret here). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
