import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { concurrencyLimit } from './concurrency-limit.js';
import { isImportedDigest, verifyImportedPassword } from './imported-password-hashes.js';

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which isolated modules cannot import). */
const ARGON2ID = 2;

/** Argon2id with OWASP's baseline cost (19 MiB, 2 passes, 1 lane): about 8–12 ms per hash on one core of the
 * bench machines. */
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * One hash per CPU the process may use (`availableParallelism` honours taskset and cpusets). Argon2id is
 * memory-hard: each hash sweeps 19 MiB, and several on one core evict each other from the caches, so together
 * they never finish sooner than one after another and often later (bench/raw-argon2.ts on one core, four in
 * flight: from 0.5 to 1.0 of the rate of one in flight, depending on the machine and the moment). Logins of 32
 * users on a server pinned to one CPU went from 35 to 58 per second with the cap. It also keeps libuv pool
 * threads free for other work (signatures, file reads) while logins queue.
 */
const hashing = concurrencyLimit(availableParallelism());

export function hashPassword(password: string): Promise<string> {
  return hashing.run(() => hash(password, OPTIONS));
}

/**
 * Checks a password against its stored hash, by the hash's kind: ours and imported argon2 (`$argon2…`), and hashes
 * kept from a bulk import until the user's first login (bcrypt, pbkdf2, salted digests, HMAC).
 */
export async function verifyPassword(password: string, passwordHash: string): Promise<boolean> {
  try {
    if (isImportedDigest(passwordHash)) return await hashing.run(() => verifyImportedPassword(password, passwordHash));
    if (BCRYPT.test(passwordHash)) return await hashing.run(() => bcrypt.compare(password, passwordHash));
    return await hashing.run(() => verify(passwordHash, password));
  } catch {
    return false;
  }
}

const BCRYPT = /^\$2[aby]\$/;
const CURRENT_PREFIX = `$argon2id$v=19$m=${OPTIONS.memoryCost},t=${OPTIONS.timeCost},p=${OPTIONS.parallelism}$`;

/** False for a hash another system made (imported): the login that proves the password replaces it with ours. */
export const isCurrentPasswordHash = (passwordHash: string) => passwordHash.startsWith(CURRENT_PREFIX);

/** Hashes running and waiting for a slot now. */
export const passwordHashingLoad = () => hashing.load;
