import type { Redis } from 'ioredis';
import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { RateLimitSpec } from '../config/rate-limit-spec.js';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch seconds at which the current window resets. */
  reset: number;
  retryAfterSeconds: number;
}

export interface RateLimiter {
  consume(key: string): Promise<RateLimitDecision>;
}

/** The burst pool refills over this many windows, so a burst is an occasional allowance, not a second rate. */
const BURST_REFILL_WINDOWS = 10;

/**
 * A limiter for `spec`, keeping counters in Redis when a client is given (so nodes share them) and in memory
 * otherwise. With Redis, an in-memory limiter stands in while Redis is unreachable rather than failing requests.
 */
export function createRateLimiter(spec: RateLimitSpec, options: { name: string; redis?: Redis }): RateLimiter {
  const make = (keyPrefix: string, points: number, duration: number): RateLimiterAbstract => {
    const memory = new RateLimiterMemory({ keyPrefix, points, duration });
    if (!options.redis) return memory;
    return new RateLimiterRedis({ storeClient: options.redis, keyPrefix, points, duration, insuranceLimiter: memory });
  };
  const prefix = `latchkey:rl:${options.name}`;
  const primary = make(prefix, spec.points, spec.durationSeconds);
  const extra = spec.burst - spec.points;
  const limiter =
    extra > 0 ? new BurstyRateLimiter(primary, make(`${prefix}:burst`, extra, spec.durationSeconds * BURST_REFILL_WINDOWS)) : primary;

  return {
    async consume(key) {
      let result: RateLimiterRes;
      let allowed = true;
      try {
        result = await limiter.consume(key);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        result = rejection;
        allowed = false;
      }
      const waitMs = Math.max(0, result.msBeforeNext);
      return {
        allowed,
        limit: spec.points,
        remaining: Math.max(0, result.remainingPoints),
        reset: Math.ceil((Date.now() + waitMs) / 1000),
        retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
      };
    },
  };
}
