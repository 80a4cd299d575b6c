import { createHmac, getRandomValues } from 'node:crypto';

/**
 * The host halves of the prelude's synchronous helpers (sandbox-prelude.ts): each takes copied strings or numbers
 * from the sandbox, checks them (tenant code shapes them), and answers with a copied string, string array or byte
 * array, or null for anything it refuses. Bounded so that a tenant cannot make the host hash or parse megabytes.
 */

/** Longest text the host signs: a session token's header and claims, base64url (256 KiB). */
export const MAX_SIGNED_CHARS = 256 * 1024;
/** Longest URL (or base, or component) the host parses (64 KiB). */
const MAX_URL_CHARS = 64 * 1024;
/** Most random bytes in one call: crypto.getRandomValues' own quota. */
const MAX_RANDOM_BYTES = 65_536;

/** HMAC-SHA256 of `text` under `secret`, base64url without padding (a JWT's HS256 signature). */
export function hmacSha256(secret: unknown, text: unknown): string | null {
  if (typeof secret !== 'string' || typeof text !== 'string' || text.length > MAX_SIGNED_CHARS || secret.length > MAX_SIGNED_CHARS) return null;
  return createHmac('sha256', secret).update(text).digest('base64url');
}

export function randomBytes(count: unknown): Uint8Array | null {
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > MAX_RANDOM_BYTES) return null;
  return getRandomValues(new Uint8Array(count));
}

type UrlComponent = 'href' | 'protocol' | 'username' | 'password' | 'host' | 'hostname' | 'port' | 'pathname' | 'search' | 'hash';
const SETTABLE = new Set<string>(['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash']);

function setComponent(url: URL, component: UrlComponent, value: string): URL {
  switch (component) {
    case 'href':
      return new URL(value); // invalid: throws, as the standard's href setter does
    case 'protocol':
      url.protocol = value;
      break;
    case 'username':
      url.username = value;
      break;
    case 'password':
      url.password = value;
      break;
    case 'host':
      url.host = value;
      break;
    case 'hostname':
      url.hostname = value;
      break;
    case 'port':
      url.port = value;
      break;
    case 'pathname':
      url.pathname = value;
      break;
    case 'search':
      url.search = value;
      break;
    case 'hash':
      url.hash = value;
      break;
  }
  return url;
}

const tooLong = (value: unknown) => typeof value === 'string' && value.length > MAX_URL_CHARS;

/**
 * The sandbox's URL, parsed by Node's WHATWG URL: op 'parse' parses `first` against the base `second` (or none);
 * any other op is the component to set on the URL `first` to `second`. Answers [href, origin, protocol, username,
 * password, host, hostname, port, pathname, search, hash], or null when the input is not a URL.
 */
export function urlComponents(op: unknown, first: unknown, second: unknown): string[] | null {
  if (typeof first !== 'string' || tooLong(first) || tooLong(second)) return null;
  try {
    let url: URL;
    if (op === 'parse') {
      if (second !== undefined && typeof second !== 'string') return null;
      url = second === undefined ? new URL(first) : new URL(first, second);
    } else if (typeof op === 'string' && SETTABLE.has(op) && typeof second === 'string') {
      url = setComponent(new URL(first), op as UrlComponent, second);
    } else {
      return null;
    }
    return [url.href, url.origin, url.protocol, url.username, url.password, url.host, url.hostname, url.port, url.pathname, url.search, url.hash];
  } catch {
    return null;
  }
}
