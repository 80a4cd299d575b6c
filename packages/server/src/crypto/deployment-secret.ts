import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The deployment secret, and keys derived from it for separate purposes so that one use can never be
 * confused with another.
 */
export interface DeploymentSecret {
  /** 32-byte key for a named purpose. */
  key(purpose: string): Buffer;
}

export function deploymentSecret(secret: string): DeploymentSecret {
  const cache = new Map<string, Buffer>();
  return {
    key(purpose) {
      let key = cache.get(purpose);
      if (!key) {
        key = Buffer.from(hkdfSync('sha256', secret, 'latchkey', purpose, 32));
        cache.set(purpose, key);
      }
      return key;
    },
  };
}

/** Development only: reads the generated secret from the data folder, creating it once (mode 0600). */
export function developmentSecret(dataDir: string): string {
  const file = join(dataDir, 'secret');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first: use theirs. Anything else (permissions, disk) is a real failure.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const secret = readFileSync(file, 'utf8').trim();
  // An empty or truncated file must not quietly become the key material (an empty string works as an HKDF input).
  if (secret.length < 32) throw new Error(`${file} does not hold a development secret (at least 32 characters): restore it, or set LATCHKEY_SECRET`);
  return secret;
}

export function hmacSha256(key: Buffer, value: string): Buffer {
  return createHmac('sha256', key).update(value).digest();
}
