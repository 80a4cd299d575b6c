import { randomFillSync, randomInt } from 'node:crypto';

/**
 * Cryptographically secure random bytes, drawn from a buffer refilled 4 KiB at a time. Every `randomBytes` call
 * costs about 5 µs whatever its size (OpenSSL's generator is entered once per call), and a token answer draws
 * random bytes three to five times (handles, token ids, IVs): the pool makes each draw about 0.4 µs. The bytes
 * come from the same generator; each is handed out once, as a copy, so no caller sees another's bytes.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

export function secureRandomBytes(size: number): Buffer {
  if (size > pool.length) return randomFillSync(Buffer.alloc(size));
  if (poolOffset + size > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + size));
  // Handed out bytes are wiped from the pool, so a later heap dump does not show what a handle was made of.
  pool.fill(0, poolOffset, poolOffset + size);
  poolOffset += size;
  return bytes;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random identifier of `length` characters of `alphabet` (alphanumeric by default; unbiased). */
export function randomId(length = 32, alphabet = ALPHANUMERIC): string {
  // The largest multiple of the alphabet's size that fits a byte: bytes at or above it are dropped, so that every
  // character is equally likely (248 = 4 * 62 for the alphanumeric one).
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of secureRandomBytes(length * 2)) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

/** A random hexadecimal identifier (24 characters, like the platform's object ids). */
export function randomHexId(): string {
  return secureRandomBytes(12).toString('hex');
}

/** A six-digit one-time code (000000-999999, unbiased), as texts and e-mails carry them. */
export const sixDigitCode = (): string => digitCode(6);

/** A one-time code of `length` digits (up to 14), each value equally likely. */
export const digitCode = (length: number): string => String(randomInt(0, 10 ** length)).padStart(length, '0');
