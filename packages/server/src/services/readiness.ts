import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Storage } from '../storage/storage.js';

/**
 * How long each backing service has to answer a readiness probe. Probes come every few seconds and must answer
 * within their own timeout (often 1 s), whatever the outage: a database that is unreachable would otherwise hold
 * the probe for the pool's connect timeout (5 s). A service that answers only later counts as down this time.
 */
export const READINESS_TIMEOUT_MS = 1000;

export type Health = 'up' | 'down';

export interface ReadinessReport {
  ready: boolean;
  /** Each backing service this node needs; `redis` only when REDIS_URL is configured. */
  checks: { database: Health; redis?: Health };
}

/** Resolves to whether `probe` succeeded within the timeout; never rejects, and leaves no timer behind. */
async function answersInTime(probe: () => Promise<unknown>): Promise<Health> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Health>((resolve) => {
    timer = setTimeout(() => resolve('down'), READINESS_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      probe().then(
        () => 'up' as const,
        () => 'down' as const,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether this node can serve: the database answers a trivial query and, when configured, Redis answers PING.
 * Both are asked at once, so a probe takes at most READINESS_TIMEOUT_MS.
 */
export function readinessProbe(deps: { storage: Storage; redis: Redis | undefined }): () => Promise<ReadinessReport> {
  const { storage, redis } = deps;
  return async () => {
    const [database, redisHealth] = await Promise.all([
      answersInTime(() => sql`select 1`.execute(storage.dialect.db)),
      redis ? answersInTime(() => redis.ping()) : undefined,
    ]);
    const checks: ReadinessReport['checks'] = redisHealth === undefined ? { database } : { database, redis: redisHealth };
    return { ready: database === 'up' && redisHealth !== 'down', checks };
  };
}
