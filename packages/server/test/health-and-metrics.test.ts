import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load.js';
import { randomId } from '../src/crypto/random.js';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, startTestServer, type TestServer } from './support/harness.js';
import { call, eventually, management, managementToken, requestToken, startOutageNode, type Answer, type OutageNode } from './support/outage.js';
import { ownedPostgresUnsupported, startOwnedPostgres, startOwnedRedis, type OwnedPostgres, type OwnedRedis } from './support/owned-services.js';
import { freePort } from './support/ports.js';
import { sample } from './support/prometheus-text.js';
import { DIALECTS, POSTGRES_URL, type DialectKind } from './support/services.js';

/**
 * Issue 25 §4: the health checks (`/testall`, `/health/live`, `/health/ready`) and the Prometheus metrics on their
 * own listener (LATCHKEY_METRICS_PORT), off by default.
 */

/** The TCP ports a process listens on (Linux: its socket descriptors matched with the kernel's LISTEN sockets). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // The descriptor closed while we looked.
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      const [local, state, inode] = [columns[1], columns[3], columns[9]];
      if (state === '0A' && inode !== undefined && inodes.has(inode) && local) ports.push(Number.parseInt(local.split(':')[1] ?? '', 16));
    }
  }
  return ports.sort();
}

describe.each(DIALECTS)('health checks (%s)', (dialect) => {
  let server: TestServer;
  /** What the server logs, at LOG_LEVEL=debug (where every other request is logged). */
  const lines: string[] = [];

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    // A strict limit on the token endpoint: the probes must not count against any limit.
    server = await startTestServer({ dialect, env: { LATCHKEY_AUTH_RATE_LIMIT: '2/m', LOG_LEVEL: 'debug' }, logger: pino({ level: 'debug' }, destination) });
  });
  afterAll(async () => server?.close());

  it('answers GET /testall with 200 and the text OK, as the platform does', async () => {
    const answer = await server.app.inject({ method: 'GET', url: '/testall' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain/);
    expect(answer.body).toBe('OK');
  });

  it('answers /health/live and /health/ready with 200 while the database answers', async () => {
    const live = await server.app.inject({ method: 'GET', url: '/health/live' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok' });
    const ready = await server.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.headers['cache-control']).toBe('no-store');
    expect(ready.json()).toEqual({ status: 'ok', checks: { database: 'up' } });
  });

  it('is never rate limited', async () => {
    for (let i = 0; i < 6; i += 1) {
      for (const url of ['/testall', '/health/live', '/health/ready']) {
        const answer = await server.app.inject({ method: 'GET', url });
        expect(answer.statusCode, url).toBe(200);
        expect(answer.headers['x-ratelimit-limit'], url).toBeUndefined();
      }
    }
  });

  it('validates its (empty) query string', async () => {
    for (const url of ['/testall?x=1', '/health/live?x=1', '/health/ready?verbose=true']) {
      expect((await server.app.inject({ method: 'GET', url })).statusCode, url).toBe(400);
    }
  });

  it('keeps the probes out of the OpenAPI document of the Management API', async () => {
    const document = (await server.app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.includes('health') || path.includes('testall'))).toEqual([]);
  });

  it('logs no line per probe at LOG_LEVEL=debug, while other requests are logged', async () => {
    // Only what this test asks is looked at.
    lines.length = 0;
    for (const url of ['/testall', '/health/live', '/health/ready']) expect((await server.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    expect((await server.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).statusCode).toBe(200);
    expect(lines.some((line) => line.includes('/.well-known/jwks.json'))).toBe(true);
    expect(lines.filter((line) => line.includes('/health/') || line.includes('/testall'))).toEqual([]);
  });
});

describe('LATCHKEY_METRICS_PORT', () => {
  it('is off by default, and the metrics host defaults to HOST', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ LATCHKEY_METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(loadConfig({ LATCHKEY_METRICS_PORT: '9464', HOST: '0.0.0.0' }).metrics).toEqual({ port: 9464, host: '0.0.0.0' });
    expect(loadConfig({ LATCHKEY_METRICS_PORT: '9464', LATCHKEY_METRICS_HOST: '10.0.0.5' }).metrics).toEqual({ port: 9464, host: '10.0.0.5' });
    expect(() => loadConfig({ LATCHKEY_METRICS_PORT: 'nine' })).toThrow(/LATCHKEY_METRICS_PORT/);
    expect(() => loadConfig({ LATCHKEY_METRICS_PORT: '9464', LATCHKEY_METRICS_HOST: 'not a host' })).toThrow(/LATCHKEY_METRICS_HOST/);
  });
});

/** A `latchkey serve` on a fresh database of the dialect: SQLite in its data folder, or a PostgreSQL schema of its own. */
async function startNode(dialect: DialectKind, env: Record<string, string>): Promise<{ node: OutageNode; cleanup: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const node = await startOutageNode(env);
    return { node, cleanup: () => node.stop() };
  }
  const schema = `metrics_${randomId(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const node = await startOutageNode({ ...env, DATABASE_URL: `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}` });
  return {
    node,
    async cleanup() {
      await node.stop();
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    },
  };
}

describe.each(DIALECTS)('Prometheus metrics on their own listener (%s)', (dialect) => {
  let node: OutageNode;
  let cleanup: () => Promise<void>;
  let metricsPort: number;
  let scrape: () => Promise<Answer & { contentType: string }>;
  const connection = `db-metrics-${dialect}`;

  beforeAll(async () => {
    metricsPort = await freePort();
    ({ node, cleanup } = await startNode(dialect, {
      LATCHKEY_METRICS_PORT: String(metricsPort),
      // One request a minute on this route, so that the second is refused.
      LATCHKEY_AUTH_RATE_LIMITS: '/.well-known/jwks.json=1/m',
    }));
    scrape = async () => {
      const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      return { status: response.status, headers: response.headers, text: await response.text(), json: {}, contentType: response.headers.get('content-type') ?? '' };
    };
  }, 120_000);
  afterAll(async () => cleanup?.());

  it('listens on the metrics port as well as the public one, and says so at start', () => {
    expect(node.process.output()).toContain(`Metrics (Prometheus): http://127.0.0.1:${metricsPort}/metrics`);
    expect(listeningPorts(node.process.child.pid ?? 0)).toEqual([Number(new URL(node.url).port), metricsPort].sort());
  });

  it('counts a login, a refused login, tokens, a rate-limit refusal and an attack-protection refusal, by bounded labels', async () => {
    const token = await managementToken(node);
    const created = await management(node, token, 'POST', '/clients', {
      name: 'metrics app',
      app_type: 'regular_web',
      callbacks: ['https://app.example.com/callback'],
      grant_types: ['http://auth0.com/oauth/grant-type/password-realm'],
    });
    expect(created.status, created.text).toBe(201);
    const client = { id: String(created.json.client_id), secret: String(created.json.client_secret) };
    expect((await management(node, token, 'POST', '/connections', { name: connection, strategy: 'auth0', enabled_clients: [client.id] })).status).toBe(201);
    const password = 'metrics are not secrets 1234';
    expect((await management(node, token, 'POST', '/users', { connection, email: 'metrics@example.com', password })).status).toBe(201);
    expect((await management(node, token, 'PATCH', '/attack-protection/brute-force-protection', { max_attempts: 2 })).status).toBe(200);

    const login = (attempt: string) =>
      call(node, '/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
          client_id: client.id,
          client_secret: client.secret,
          username: 'metrics@example.com',
          password: attempt,
          realm: connection,
        }),
      });
    expect((await login(password)).status).toBe(200);
    expect((await login('wrong password')).status).toBe(403);
    expect((await login('wrong password')).status).toBe(403);
    // The second failure blocked the account from this address: now brute-force protection refuses.
    expect((await login(password)).status).toBe(429);
    expect((await call(node, '/.well-known/jwks.json')).status).toBe(200);
    expect((await call(node, '/.well-known/jwks.json')).status).toBe(429);
    expect((await call(node, '/no/such/page/8f3e2a')).status).toBe(404);

    const scraped = await scrape();
    expect(scraped.status).toBe(200);
    expect(scraped.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = scraped.text;
    const realm = 'http://auth0.com/oauth/grant-type/password-realm';
    expect(sample(text, 'latchkey_tokens_issued_total', { grant_type: 'client_credentials' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'latchkey_tokens_issued_total', { grant_type: realm })).toBe(1);
    expect(sample(text, 'latchkey_sign_ins_total', { result: 'success', connection })).toBe(1);
    expect(sample(text, 'latchkey_sign_ins_total', { result: 'wrong_credentials', connection })).toBe(2);
    expect(sample(text, 'latchkey_sign_ins_total', { result: 'too_many_attempts', connection })).toBe(1);
    expect(sample(text, 'latchkey_attack_protection_refusals_total', { shield: 'brute_force' })).toBe(1);
    expect(sample(text, 'latchkey_rate_limit_refusals_total', { surface: 'authentication', route: '/.well-known/jwks.json' })).toBe(1);
    expect(sample(text, 'latchkey_http_requests_total', { method: 'POST', route: '/oauth/token', status_code: '200' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'latchkey_http_requests_total', { method: 'GET', route: '/.well-known/jwks.json', status_code: '429' })).toBe(1);
    expect(sample(text, 'latchkey_http_requests_total', { method: 'POST', route: '/api/v2/clients', status_code: '201' })).toBe(1);
    expect(sample(text, 'latchkey_http_request_duration_seconds_count', { method: 'POST', route: '/oauth/token', status_code: '403' })).toBe(2);
    expect(sample(text, 'latchkey_http_request_duration_seconds_bucket', { route: '/oauth/token', status_code: '403', le: '+Inf' })).toBe(2);
    // Route patterns, never URLs: the unknown page is one `(unmatched)` series, and no id or path appears.
    expect(sample(text, 'latchkey_http_requests_total', { method: 'GET', route: '(unmatched)', status_code: '404' })).toBe(1);
    expect(text).not.toContain('8f3e2a');
    expect(text).not.toContain(client.id);
    expect(text).not.toContain('metrics@example.com');
    expect(text).toMatch(/route="\/api\/v2\/users\/:id"|route="\/api\/v2\/users"/);
    // The password-hash queue, event-loop lag (prom-client's process metrics), and the pool on PostgreSQL only.
    expect(sample(text, 'latchkey_password_hashes', { state: 'running' })).toBe(0);
    expect(sample(text, 'latchkey_password_hashes', { state: 'waiting' })).toBe(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    // The tenant log's buffer: every event the flows above recorded is stored and counted, none lost.
    let stored: number | undefined;
    let counted: string | undefined;
    await eventually(async () => {
      const logs = await management(node, token, 'GET', '/logs?include_totals=true&per_page=1');
      stored = Number(logs.json.total);
      counted = (await scrape()).text;
      return sample(counted, 'latchkey_log_events_buffered') === 0 && sample(counted, 'latchkey_log_events_written_total') === stored;
    });
    expect(stored).toBeGreaterThanOrEqual(8);
    expect(sample(counted ?? '', 'latchkey_log_events_dropped_total')).toBe(0);
    expect(counted).toContain('# TYPE latchkey_log_events_dropped_total counter');
    expect(counted).toContain('# TYPE latchkey_log_events_written_total counter');
    expect(counted).toContain('# TYPE latchkey_log_events_buffered gauge');
    if (dialect === 'postgres') {
      expect(sample(text, 'latchkey_database_pool_connections', { state: 'total' })).toBeGreaterThan(0);
      expect(sample(text, 'latchkey_database_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'latchkey_database_pool_waiting')).toBe(0);
    } else {
      expect(text).not.toContain('latchkey_database_pool');
    }
  }, 60_000);

  it('serves only GET /metrics there, and nothing of it on the public port', async () => {
    expect((await fetch(`http://127.0.0.1:${metricsPort}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { method: 'POST' })).status).toBe(404);
    const publicAnswer = await call(node, '/metrics');
    expect(publicAnswer.status).toBe(404);
    expect(publicAnswer.text).not.toContain('latchkey_');
  });
});

describe('the tenant log buffer in the metrics', () => {
  let server: TestServer;

  beforeAll(async () => {
    // A buffer of two events whose writer waits a minute unless flushed: the third event finds it full.
    server = await startTestServer({ dialect: 'sqlite', events: { capacity: 2, intervalMs: 60_000 } });
  });
  afterAll(async () => server?.close());

  it('counts what a full buffer drops, what waits in it and what is written', async () => {
    const scrape = async () => (await server.registry.metrics.scrape()).text;
    const exchange = () =>
      server.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: server.audience } });
    await server.registry.events.flush();
    const before = await scrape();
    const written = sample(before, 'latchkey_log_events_written_total') ?? Number.NaN;
    expect(sample(before, 'latchkey_log_events_buffered')).toBe(0);
    expect(sample(before, 'latchkey_log_events_dropped_total')).toBe(0);

    // Three exchanges, each recording `seccft`: two are buffered, the third is dropped; all three are answered.
    for (let i = 0; i < 3; i += 1) expect((await exchange()).statusCode).toBe(200);
    const full = await scrape();
    expect(sample(full, 'latchkey_log_events_buffered')).toBe(2);
    expect(sample(full, 'latchkey_log_events_dropped_total')).toBe(1);
    expect(sample(full, 'latchkey_log_events_written_total')).toBe(written);

    await server.registry.events.flush();
    const drained = await scrape();
    expect(sample(drained, 'latchkey_log_events_buffered')).toBe(0);
    expect(sample(drained, 'latchkey_log_events_dropped_total')).toBe(1);
    expect(sample(drained, 'latchkey_log_events_written_total')).toBe(written + 2);
    // The log holds the two exchanges that were buffered, and nothing of the dropped one.
    const { events } = await server.registry.storage.logEvents.list(server.registry.tenantId, { limit: 100 });
    expect(events.filter((event) => event.type === 'seccft')).toHaveLength(2);
  });
});

const ownedPostgresProblem = ownedPostgresUnsupported();
if (ownedPostgresProblem && process.env.REQUIRE_SERVICES === '1') throw new Error(`health-and-metrics: REQUIRE_SERVICES=1 but ${ownedPostgresProblem}`);
if (ownedPostgresProblem) console.warn(`\n!!! health-and-metrics: the stopped-PostgreSQL readiness test is SKIPPED (its node uses SQLite): ${ownedPostgresProblem}\n`);

/**
 * One node for every readiness outage, since starting a `latchkey serve` is the costly part: on a Redis of its own
 * and, where this machine can run one, a PostgreSQL of its own, which the tests stop, pause and start again.
 */
describe('readiness while Redis or the PostgreSQL database is down, and the metrics port left unset', () => {
  let redis: OwnedRedis;
  let database: OwnedPostgres | undefined;
  let node: OutageNode;

  beforeAll(async () => {
    redis = await startOwnedRedis();
    database = ownedPostgresProblem === undefined ? await startOwnedPostgres() : undefined;
    // Every request reads the database (no cached configuration), as in database-outage.test.ts.
    node = await startOutageNode({ REDIS_URL: redis.url, ...(database ? { DATABASE_URL: database.url, LATCHKEY_CONFIG_CACHE_SECONDS: '0' } : {}) });
  }, 150_000);
  afterAll(async () => {
    await node?.stop();
    await redis?.destroy();
    await database?.destroy();
  });

  it('listens on the public port only: no metrics listener unless LATCHKEY_METRICS_PORT is set', () => {
    expect(node.process.output()).not.toContain('Metrics (Prometheus)');
    expect(listeningPorts(node.process.child.pid ?? 0)).toEqual([Number(new URL(node.url).port)]);
  });

  it('answers 503 naming Redis while it is down, and 200 again once it is back; liveness stays 200', async () => {
    expect((await call(node, '/health/ready')).json).toEqual({ status: 'ok', checks: { database: 'up', redis: 'up' } });
    await redis.kill();
    const down = await call(node, '/health/ready');
    expect(down.status).toBe(503);
    expect(down.json).toEqual({ status: 'unavailable', checks: { database: 'up', redis: 'down' } });
    expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await call(node, '/health/live')).status).toBe(200);
    expect((await call(node, '/testall')).status).toBe(200);
    await redis.start();
    await eventually(async () => (await call(node, '/health/ready')).status === 200);
  }, 60_000);

  it('answers 503 within its timeout while Redis hangs', async () => {
    redis.pause();
    try {
      const started = Date.now();
      const hung = await call(node, '/health/ready');
      expect(hung.status).toBe(503);
      expect(hung.json).toMatchObject({ checks: { redis: 'down' } });
      // The probe's own bound (1 s per check), with room for a loaded machine; nothing waits for Redis.
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      redis.resume();
    }
    await eventually(async () => (await call(node, '/health/ready')).status === 200);
  }, 60_000);

  it.runIf(ownedPostgresProblem === undefined)('answers 503 naming the database while it is down, in step with the other requests, and 200 once it is back', async () => {
    const stopped = database as OwnedPostgres;
    expect((await call(node, '/health/ready')).json).toEqual({ status: 'ok', checks: { database: 'up', redis: 'up' } });
    await stopped.stop();
    const down = await call(node, '/health/ready');
    expect(down.status).toBe(503);
    expect(down.json).toEqual({ status: 'unavailable', checks: { database: 'down', redis: 'up' } });
    expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
    // The other requests that need the database are 503 too (http/unavailable.ts); the process lives on.
    expect((await requestToken(node)).status).toBe(503);
    expect((await call(node, '/health/live')).status).toBe(200);
    await stopped.start();
    await eventually(async () => (await call(node, '/health/ready')).status === 200);
    expect((await requestToken(node)).status).toBe(200);
    expect(node.alive(), node.process.output()).toBe(true);
  }, 90_000);
});
