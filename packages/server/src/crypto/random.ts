import { randomBytes } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random identifier of `length` alphanumeric characters (unbiased). */
export function randomId(length = 32): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: discard the top of the byte range so every character is equally likely.
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

/** A random hexadecimal identifier (24 characters, like the platform's object ids). */
export function randomHexId(): string {
  return randomBytes(12).toString('hex');
}
