import { isIP } from 'node:net';

/**
 * The parsers the settings schema (settings.ts) gives its variables. Each takes the trimmed, non-empty value and
 * returns what the configuration holds, or throws an Error whose message says what is wrong; the reader prefixes
 * the variable's name (ConfigError), so the messages here never name it.
 */

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export function port(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) throw new Error(`expected a port number 0-65535, got "${raw}"`);
  return Number(raw);
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export function host(raw: string): string {
  if (isIP(raw) === 0 && !HOSTNAME.test(raw)) throw new Error(`expected an IP address or a host name, got "${raw}"`);
  return raw;
}

function parseUrl(raw: string, protocols: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`not a URL: "${raw}"`);
  }
  if (!protocols.includes(url.protocol)) throw new Error(`expected a ${protocols.join(' or ')} URL, got "${raw}"`);
  return url;
}

/** A URL with one of the protocols (`https:` and the like), kept as written. */
export function urlOf(...protocols: string[]): (raw: string) => string {
  return (raw) => {
    parseUrl(raw, protocols);
    return raw;
  };
}

/** The public base URL, without the trailing slash (tokens add one to `iss`). */
export function issuer(raw: string): string {
  const url = parseUrl(raw, ['http:', 'https:']);
  if (url.search || url.hash) throw new Error('must not carry a query or fragment');
  return url.href.replace(/\/+$/, '');
}

export function database(raw: string): DatabaseConfig {
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length);
    if (!path) throw new Error('sqlite: needs a file path, e.g. sqlite:./data/latchkey.db');
    return { kind: 'sqlite', path };
  }
  parseUrl(raw, ['postgres:', 'postgresql:']);
  return { kind: 'postgres', url: raw };
}

/** A shared secret: long enough that guessing it is hopeless; `problem` is the variable's own wording. */
export function secretOf32(problem: string): (raw: string) => string {
  return (raw) => {
    if (raw.length < 32) throw new Error(problem);
    return raw;
  };
}

/** A whole number of `unit` from `min` to `max`. */
function whole(unit: string): (min: number, max: number) => (raw: string) => number {
  return (min, max) => (raw) => {
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new Error(`expected whole ${unit} ${min}-${max}, got "${raw}"`);
    return Number(raw);
  };
}

export const wholeSeconds = whole('seconds');
export const wholeDays = whole('days');
export const wholeMilliseconds = whole('milliseconds');
export const wholeMegabytes = whole('megabytes');

export function tenantName(raw: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(raw)) throw new Error('use lower-case letters, digits and dashes');
  return raw;
}

/** A sender for the From header: it must hold an address and must not smuggle in another header line. */
export function mailbox(raw: string): string {
  if (!/@/.test(raw) || /[\r\n]/.test(raw)) throw new Error('expected an address such as "Name <no-reply@example.com>"');
  return raw;
}

export function onOff(raw: string): boolean {
  if (raw !== 'on' && raw !== 'off') throw new Error('must be on or off');
  return raw === 'on';
}

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export function logLevel(raw: string): string {
  if (!LOG_LEVELS.has(raw)) throw new Error(`unknown level "${raw}"`);
  return raw;
}
