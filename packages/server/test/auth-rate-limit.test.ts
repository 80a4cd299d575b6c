import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';
import { freePort } from './support/ports.js';
import { startServeProcess, type Running } from './support/processes.js';
import { REDIS_URL, redisAvailable } from './support/services.js';

const TOO_MANY = { error: 'too_many_requests', error_description: 'Too many requests. Check the X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset headers.' };

const limits = (response: Response) => ['x-ratelimit-limit', 'x-ratelimit-remaining'].map((name) => response.headers.get(name));

describe('Authentication API rate limits (in memory)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      dialect: 'sqlite',
      listen: true,
      env: { LATCHKEY_AUTH_RATE_LIMIT: '3/m', LATCHKEY_AUTH_RATE_LIMITS: '/passwordless/start=1/m; /userinfo=5/m burst 6' },
    });
  });
  afterAll(async () => server?.close());

  it('counts per endpoint and address, answers every response with the headers, and refuses with 429 beyond', async () => {
    const discovery = () => fetch(`${server.url}/.well-known/openid-configuration`);
    const seen: (string | null)[][] = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await discovery();
      expect(response.status).toBe(200);
      seen.push(limits(response));
      expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    }
    expect(seen).toEqual([['3', '2'], ['3', '1'], ['3', '0']]);
    const askedAt = performance.now();
    const refused = await discovery();
    // Held back before it is answered (the tarpit, 1 s ± 25 %), so a flood costs the flooder time.
    expect(performance.now() - askedAt).toBeGreaterThanOrEqual(740);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual(TOO_MANY);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limits(refused)).toEqual(['3', '0']);
    // A flood's refusals do not come back in one instant (which would bring its requests back as one burst).
    const floodStart = performance.now();
    const answeredAfter = await Promise.all(
      Array.from({ length: 16 }, async () => {
        const response = await discovery();
        expect(response.status).toBe(429);
        await response.arrayBuffer();
        return performance.now() - floodStart;
      }),
    );
    expect(Math.min(...answeredAfter)).toBeGreaterThanOrEqual(740);
    expect(Math.max(...answeredAfter) - Math.min(...answeredAfter)).toBeGreaterThan(150);

    // Another endpoint has its own count, and its own limit where one is configured.
    const userinfo = await fetch(`${server.url}/userinfo`);
    expect(userinfo.status).toBe(401);
    expect(limits(userinfo)).toEqual(['6', '5']);
    // The database-connection calls answer their refusal in the same shape (their own errors have another one).
    for (const path of ['/dbconnections/signup', '/dbconnections/change_password']) {
      const call = () => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      for (let i = 0; i < 3; i += 1) expect((await call()).status).toBe(400);
      const refusedCall = await call();
      expect(refusedCall.status).toBe(429);
      expect(await refusedCall.json()).toEqual(TOO_MANY);
    }
    const start = () => fetch(`${server.url}/passwordless/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect((await start()).status).toBe(400);
    const second = await start();
    expect(second.status).toBe(429);
    expect(await second.json()).toEqual(TOO_MANY);
  });
});

describe.runIf(redisAvailable)('Authentication API rate limits shared by two server processes through Redis', () => {
  const nodes: { url: string; process: Running }[] = [];
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'latchkey-rl-'));
    const tenant = `rl-${Math.random().toString(36).slice(2, 10)}`;
    for (let i = 0; i < 2; i += 1) {
      const port = await freePort();
      const process = await startServeProcess({
        PORT: String(port),
        LATCHKEY_ISSUER: `http://127.0.0.1:${port}`,
        DATABASE_URL: `sqlite:${join(dataDir, 'latchkey.db')}`,
        LATCHKEY_DATA_DIR: dataDir,
        LATCHKEY_TENANT: tenant,
        REDIS_URL,
        LATCHKEY_AUTH_RATE_LIMIT: '3/m',
      });
      nodes.push({ url: `http://127.0.0.1:${port}`, process });
    }
    // Until a node's Redis connection is up, its limiter counts in memory (its insurance): wait until both say ready.
    for (const node of nodes) {
      for (let tries = 0; (await fetch(`${node.url}/health/ready`)).status !== 200; tries += 1) {
        if (tries > 100) throw new Error(`${node.url} never became ready`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }, 60_000);
  afterAll(async () => {
    for (const node of nodes) await node.process.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('one counter for the endpoint and address across both nodes', async () => {
    const [a, b] = nodes as unknown as [{ url: string }, { url: string }];
    const jwks = (node: { url: string }) => fetch(`${node.url}/.well-known/jwks.json`);
    expect(limits(await jwks(a))).toEqual(['3', '2']);
    expect(limits(await jwks(b))).toEqual(['3', '1']);
    expect(limits(await jwks(a))).toEqual(['3', '0']);
    const refused = await jwks(b);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual(TOO_MANY);
  });
});
