import { createHash } from 'node:crypto';
import { safeEqual } from '../crypto/handles.js';

/** RFC 7636 4.1: 43-128 characters of the unreserved set; the S256 challenge has the same alphabet. */
export const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function verifierMatches(verifier: string, challenge: string): boolean {
  return PKCE_VALUE.test(verifier) && safeEqual(s256(verifier), challenge);
}
