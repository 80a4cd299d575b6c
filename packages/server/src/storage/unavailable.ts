/**
 * Telling an outage of a backing service (the database, Redis) from a fault in a request or in our code. An outage
 * is answered 503 and passes by itself; anything else stays a 500 that an operator must look at.
 */

/** Socket-level failures: the peer is down, restarting, unreachable or cut the connection. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/**
 * PostgreSQL SQLSTATEs of a server that cannot serve now: class 08 (connection exception), a shutdown or
 * restart (57P01-57P03: a terminated backend, a fast shutdown, a server still starting), too many clients or out
 * of resources (53xxx), and a write that reached a standby during a failover (25006).
 */
function isPostgresUnavailable(code: string): boolean {
  return code.startsWith('08') || code.startsWith('53') || ['57P01', '57P02', '57P03', '25006'].includes(code);
}

/**
 * SQLite result codes of a file that cannot be used now: locked by another process past the busy timeout, an I/O
 * error, a full disk, a file that cannot be opened or written. Extended codes (SQLITE_IOERR_WRITE, ...) share
 * their primary code's prefix.
 */
const SQLITE_PREFIXES = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_NOMEM', 'SQLITE_PROTOCOL'];

/**
 * Failures that node-postgres and ioredis raise without a code when a connection is lost or cannot be made in
 * time (their messages are the only mark they carry).
 */
const CLIENT_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  "Stream isn't writeable",
  'Connection is closed.',
  'Command timed out',
  'Reached the max retries per request limit',
];

/**
 * True when `error` says the database or Redis is unavailable for now. The drivers throw their own errors
 * unwrapped; a `cause` is not followed, since fetch wraps a refused connection to an upstream provider that way,
 * and that is not an outage of ours.
 */
export function isStorageUnavailable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { code, message, name } = error as { code?: unknown; message?: unknown; name?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && isPostgresUnavailable(code)) return true;
    if (SQLITE_PREFIXES.some((prefix) => code.startsWith(prefix))) return true;
  }
  if (name === 'MaxRetriesPerRequestError') return true;
  return typeof message === 'string' && CLIENT_MESSAGES.some((known) => message.startsWith(known));
}
