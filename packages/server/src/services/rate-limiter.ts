import type { Redis } from 'ioredis';
import {
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
 * otherwise. With Redis, an in-memory limiter stands in while Redis is unreachable, slow or hung (its commands
 * fail fast, services/redis.ts): each node then enforces the limit on its own, so a deployment of n nodes allows
 * up to n times the limit until Redis is back. Refusing every request instead would turn a Redis outage into an
 * outage of logins, and dropping the limits altogether would leave the endpoints open to floods.
 */
export function createRateLimiter(spec: RateLimitSpec, options: { name: string; redis?: Redis }): RateLimiter {
  const make = (keyPrefix: string, points: number, duration: number): RateLimiterAbstract => {
    const memory = new RateLimiterMemory({ keyPrefix, points, duration });
    if (!options.redis) return memory;
    return new RateLimiterRedis({ storeClient: options.redis, keyPrefix, points, duration, insuranceLimiter: memory, rejectIfRedisNotReady: true });
  };
  const prefix = `latchkey:rl:${options.name}`;
  const primary = make(prefix, spec.points, spec.durationSeconds);
  const extra = spec.burst - spec.points;
  const burst = extra > 0 ? make(`${prefix}:burst`, extra, spec.durationSeconds * BURST_REFILL_WINDOWS) : undefined;

  /** Consumes one point, or returns the rejection when the pool is empty. */
  const take = async (limiter: RateLimiterAbstract, key: string): Promise<{ ok: boolean; res: RateLimiterRes }> => {
    try {
      return { ok: true, res: await limiter.consume(key) };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return { ok: false, res: rejection };
    }
  };

  return {
    async consume(key) {
      const sustained = await take(primary, key);
      let allowed = sustained.ok;
      let burstLeft = 0;
      if (burst) {
        // The burst pool is drawn on only once the window's sustained points are spent.
        if (sustained.ok) burstLeft = extra - ((await burst.get(key))?.consumedPoints ?? 0);
        else {
          const drawn = await take(burst, key);
          allowed = drawn.ok;
          burstLeft = drawn.res.remainingPoints;
        }
      }
      const waitMs = Math.max(0, sustained.res.msBeforeNext);
      return {
        allowed,
        limit: spec.burst,
        remaining: Math.max(0, sustained.res.remainingPoints) + Math.max(0, burstLeft),
        reset: Math.ceil((Date.now() + waitMs) / 1000),
        retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
      };
    },
  };
}
