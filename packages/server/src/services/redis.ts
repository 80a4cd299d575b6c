import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * A command Redis has not answered in this time fails. A Redis that hangs (paused, or cut off by the network with
 * its connection still open) would otherwise hold every request that counts against a rate limit, forever.
 * Rate-limit commands take well under a millisecond when Redis is healthy.
 */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * The node's Redis connection. While Redis is down or hung, commands fail fast instead of queueing (callers fall
 * back, see rate-limiter.ts), the client keeps reconnecting in the background (ioredis's default strategy: never
 * giving up, at most 2 s apart), and the outage is logged once when it starts and once when it ends rather than at
 * every reconnection attempt.
 */
export function connectRedis(url: string, log: Pick<Logger, 'warn' | 'info'>): Redis {
  const redis = new Redis(url, {
    // Offline, a command is refused at once rather than kept until Redis is back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  });
  let down = false;
  // Heard, a connection error ends nothing; unheard, it would end the process.
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    log.warn({ reason: error.message }, 'redis unavailable; rate limits are counted on this node alone until it is back');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    log.info('redis reachable again; rate limits are shared again');
  });
  return redis;
}
