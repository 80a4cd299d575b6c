import { createHmac } from 'node:crypto';

/** RFC 6238 TOTP (SHA-1, 6 digits, 30 s) of a Base32 secret, written here independently of the server's library. */
export function totp(secret: string, at: number = Date.now()): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of secret.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 1000 / 30)));
  const digest = createHmac('sha1', key).update(counter).digest();
  const offset = (digest[digest.length - 1] ?? 0) & 0x0f;
  return String((digest.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/**
 * A code of a step the server has not accepted yet for this secret: each step's code is good once, so a test that
 * logs in again within 30 seconds takes the next step (the server accepts one step either side of now).
 */
export function freshCode(secret: string, used: Set<string>): string {
  for (const offset of [0, 30_000, -30_000]) {
    const step = Math.floor((Date.now() + offset) / 30_000);
    if (!used.has(`${secret}:${step}`)) {
      used.add(`${secret}:${step}`);
      return totp(secret, Date.now() + offset);
    }
  }
  throw new Error('every step in the window is used: wait for the next one');
}
