import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { secureRandomBytes } from '../crypto/random.js';

/**
 * Access tokens that only reach `/userinfo` (no `audience` asked for) are opaque to everyone but us, as on the
 * reference platform: nobody else verifies them, so they need no RSA signature. They are compact JWEs
 * (RFC 7516, `alg: dir`, `enc: A256GCM`) under a key derived from the deployment secret, so every node of a
 * deployment opens the tokens of the others and no database row is needed. Sealing costs a few microseconds
 * where an RS256 signature costs hundreds; a refresh answer then carries one signature (the ID token), not two.
 */
export interface OpaqueTokenCodec {
  seal(claims: Record<string, unknown>): string;
  /** The claims, or undefined when the token is not one of ours (wrong shape, other key, tampered). */
  open(token: string): Record<string, unknown> | undefined;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function opaqueTokenCodec(key: Buffer): OpaqueTokenCodec {
  if (key.length !== 32) throw new Error('A256GCM needs a 32-byte key');
  // The key id names the key without revealing it: a token sealed under another deployment secret is refused
  // before any decryption is tried.
  const kid = createHash('sha256').update('latchkey opaque access token key id').update(key).digest('base64url').slice(0, 16);
  const header = Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM', kid })).toString('base64url');
  // RFC 7516 5.1 step 14: the additional authenticated data is the ASCII of the encoded protected header.
  const aad = Buffer.from(header, 'ascii');

  return {
    seal(claims) {
      const iv = secureRandomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(aad);
      const ciphertext = Buffer.concat([cipher.update(JSON.stringify(claims), 'utf8'), cipher.final()]);
      return `${header}..${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
    },
    open(token) {
      const parts = token.split('.');
      if (parts.length !== 5 || parts[0] !== header || parts[1] !== '') return undefined;
      const iv = Buffer.from(parts[2] ?? '', 'base64url');
      const tag = Buffer.from(parts[4] ?? '', 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad);
        decipher.setAuthTag(tag);
        const plaintext = Buffer.concat([decipher.update(Buffer.from(parts[3] ?? '', 'base64url')), decipher.final()]);
        const claims: unknown = JSON.parse(plaintext.toString('utf8'));
        return claims !== null && typeof claims === 'object' && !Array.isArray(claims) ? (claims as Record<string, unknown>) : undefined;
      } catch {
        // A failed tag check (tampering, another key) or a body that is not JSON.
        return undefined;
      }
    },
  };
}

/** A compact JWE has five parts, a JWS three: tells which kind of bearer token arrived without parsing it. */
export function isCompactJwe(token: string): boolean {
  let dots = 0;
  for (let i = 0; i < token.length; i += 1) if (token.charCodeAt(i) === 46) dots += 1;
  return dots === 4;
}
