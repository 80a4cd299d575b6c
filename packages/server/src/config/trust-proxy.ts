import { isIP } from 'node:net';

/**
 * Which reverse proxies' `X-Forwarded-For` (and `-Proto`, `-Host`) to believe, in the forms Fastify's `trustProxy`
 * takes: `false` (none: the connection's own address is the client's), `true` (any), the number of proxy hops
 * in front of Latchkey, or the proxies' addresses and CIDR ranges.
 */
export type TrustProxy = boolean | number | string[];

/** The named ranges Fastify's address matcher knows besides addresses and CIDRs. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One entry of an address list: an address, `address/prefix` (IPv4 0-32, IPv6 0-128) or a named range. */
function validEntry(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Parses LATCHKEY_TRUST_PROXY; throws an Error saying what is wrong (the caller names the variable). */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > 10) throw new Error(`a hop count is 1-10, got "${raw}"`);
    return hops;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  const wrong = entries.find((entry) => !validEntry(entry));
  if (wrong !== undefined) {
    throw new Error(`expected true, false, a hop count, or addresses and CIDR ranges separated by commas; "${wrong}" is none of these`);
  }
  return entries;
}
