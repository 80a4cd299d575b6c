import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, eventually, startOutageNode, type Answer, type OutageNode } from './support/outage.js';
import { startOwnedRedis, type OwnedRedis } from './support/owned-services.js';

/**
 * Issue 22: a Redis that goes away must not stop or hang the server. While it is down or hung, each node counts
 * rate limits in memory on its own (README, Operations); once it is back, the counters are shared in Redis again.
 */
describe('rate limits while the Redis of a running node is hung, killed and restarted', () => {
  let redis: OwnedRedis;
  let node: OutageNode;
  let tenant: string;

  beforeAll(async () => {
    redis = await startOwnedRedis();
    tenant = `redis-outage-${Math.random().toString(36).slice(2, 10)}`;
    node = await startOutageNode({
      REDIS_URL: redis.url,
      LATCHKEY_TENANT: tenant,
      // One endpoint with a small limit to watch; the others effectively unlimited.
      LATCHKEY_AUTH_RATE_LIMIT: '100000/s',
      LATCHKEY_AUTH_RATE_LIMITS: '/.well-known/jwks.json=4/m',
    });
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
    await redis?.destroy();
  });

  const jwks = () => call(node, '/.well-known/jwks.json');
  const discovery = () => call(node, '/.well-known/openid-configuration');
  const remaining = (answer: Answer) => answer.headers.get('x-ratelimit-remaining');
  /** The limiter keys this node keeps in Redis (a fresh connection each time: Redis may have restarted). */
  const keysInRedis = async (): Promise<string[]> => {
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => {});
    try {
      await client.connect();
      return await client.keys(`*latchkey:rl:auth:${tenant}:*`);
    } finally {
      client.disconnect();
    }
  };

  it('counts in Redis while it is up', async () => {
    const first = await jwks();
    expect(first.status).toBe(200);
    expect(remaining(first)).toBe('3');
    expect((await keysInRedis()).some((key) => key.includes('/.well-known/jwks.json'))).toBe(true);
  });

  it('answers (fails open to the node’s own counters) while Redis is hung, instead of waiting for it', async () => {
    redis.pause();
    try {
      // A hung Redis keeps its connection open and answers nothing; each command gives up after a short timeout.
      const answers = [await discovery(), await discovery()];
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    } finally {
      redis.resume();
    }
    expect(node.alive(), node.process.output()).toBe(true);
  }, 60_000);

  it('keeps running with Redis killed and still enforces the limit on this node alone', async () => {
    await redis.kill();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await jwks()).status);
    // The in-memory counter starts afresh: four requests in the window, then the limit.
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    expect(node.alive(), node.process.output()).toBe(true);
  }, 60_000);

  it('shares the counters in Redis again once it is back', async () => {
    await redis.start();
    // The restarted Redis is empty (no persistence): once the node has reconnected, its counters reappear there.
    await eventually(async () => (await discovery()).status === 200 && (await keysInRedis()).some((key) => key.includes('/.well-known/openid-configuration')));
    // The memory counter that refused above is no longer the one asked: Redis has a fresh window for it.
    const again = await jwks();
    expect(again.status).toBe(200);
    expect(remaining(again)).toBe('3');
    expect(node.alive(), node.process.output()).toBe(true);
  }, 60_000);
});
