/**
 * `npm run bench:logs` (issue 25): `GET /api/v2/logs` on PostgreSQL holding a million events. Starts one Latchkey
 * process on a fresh schema of the PostgreSQL at BENCH_DATABASE_URL (default: the test database), seeds the tenant
 * log in bulk straight into its table (bench/log-events-seed.ts: about 45 s for a million events with every index
 * in place), then times requests one at a time, each with other values, for the searches the issue names: a
 * user's logs, a type filter, a date range and checkpoint paging, plus a user's logs by /users/{id}/logs and a
 * search with include_totals. Prints p50/p95/p99 against the aim p95 ≤ 50 ms and writes .bench/logs-results.json;
 * the schema is dropped at the end. Kept out of `npm run bench` because of the seeding's time and disk (1.2 GB).
 * Settings: BENCH_LOG_EVENTS (1000000), BENCH_LOG_REQUESTS (300 per search), BENCH_DATABASE_URL.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import pg from 'pg';
import { SEED_CLIENTS, SEED_USERS, seedClientId, seedLogEvents, seedUserId } from './log-events-seed.js';
import { call } from './measure.js';
import { BENCH_ADMIN, freePort, latchkeyEnv, pinSelf, planCpus, startTarget, stopEverything } from './processes.js';
import { renderTable } from './report.js';
import { chooser, timed, type Figures } from './sequential.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const EVENTS = Number(process.env.BENCH_LOG_EVENTS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_LOG_REQUESTS ?? 300);
const WARMUP = 20;
const DAYS = 30;
const AIM_P95_MS = 50;
const TENANT = 'bench-logs';
const ADMIN = BENCH_ADMIN;
const DEADLINE_MS = 10 * 60_000;

const q = (query: string) => `q=${encodeURIComponent(query)}`;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function main() {
  setTimeout(() => {
    console.error(`bench:logs failed: still running after ${DEADLINE_MS / 60_000} minutes`);
    process.exit(1);
  }, DEADLINE_MS).unref();
  const plan = planCpus();
  if (plan) pinSelf(plan.loadCpus);
  const schema = `bench_logs_${process.pid}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  try {
    const port = await freePort();
    const url = new URL(DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    console.log(`· Latchkey on PostgreSQL (schema ${schema})${plan ? `, pinned to CPU ${plan.serverCpu}` : ''}`);
    const server = await startTarget('latchkey', {
      port,
      workers: 1,
      ...(plan ? { cpus: plan.serverCpu } : {}),
      env: latchkeyEnv({ databaseUrl: url.toString(), dataDir: '.bench', port, tenant: TENANT }),
    });
    try {
      const seeding = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path=${schema}` });
      await seeding.connect();
      const now = new Date();
      console.log(`· seeding ${EVENTS.toLocaleString('en')} events over ${DAYS} days`);
      const seedStarted = performance.now();
      await seedLogEvents(seeding, { tenantId: TENANT, count: EVENTS, days: DAYS, now });
      const seedSeconds = (performance.now() - seedStarted) / 1000;
      const size = (await seeding.query<{ size: string }>(`select pg_size_pretty(pg_total_relation_size('log_events')) as size`)).rows[0]?.size;
      const firstId = Number((await seeding.query<{ last: string }>('select last from log_event_counters where tenant_id = $1', [TENANT])).rows[0]?.last) - EVENTS;
      await seeding.end();
      console.log(`  seeded in ${seedSeconds.toFixed(1)} s; the table and its indexes: ${size}`);

      const token = String(
        (await call(`${server.url}/oauth/token`, { method: 'POST', form: { grant_type: 'client_credentials', client_id: ADMIN.id, client_secret: ADMIN.secret, audience: `${server.url}/api/v2/`, scope: 'read:logs read:stats' } })).access_token,
      );
      const pick = chooser(25);
      const list = (body: unknown) => (Array.isArray(body) ? body.length : ((body as { logs?: unknown[] }).logs?.length ?? 0));
      const firstDay = now.getTime() - DAYS * 86_400_000;
      const searchTypes = ['f', 'fp', 's', 'ss', 'sepft', 'pwd_leak', 'seccft'];
      const logId = (n: number) => `90020${String(n).padStart(20, '0')}`;
      console.log(`· ${REQUESTS} requests per search, one at a time, after ${WARMUP} to warm up`);
      const figures: Figures[] = [];
      const measure = async (name: string, pathOf: (i: number) => string) => {
        figures.push(await timed(name, `${server.url}/api/v2`, token, pathOf, list, { requests: REQUESTS, warmup: WARMUP }));
        const last = figures.at(-1);
        if (last) console.log(`  ${name}: p95 ${last.p95} ms`);
      };
      await measure("a user's logs: q=user_id:\"…\"", () => `/logs?${q(`user_id:"${seedUserId(pick(SEED_USERS))}"`)}`);
      await measure("a user's logs: /users/{id}/logs", () => `/users/${encodeURIComponent(seedUserId(pick(SEED_USERS)))}/logs`);
      await measure('a type filter: q=type:…, pages 0-19', () => `/logs?${q(`type:${searchTypes[pick(searchTypes.length)] ?? 'f'}`)}&page=${pick(20)}`);
      await measure('a date range: q=date:[day TO day], pages 0-19', () => {
        const from = day(firstDay + (1 + pick(DAYS - 2)) * 86_400_000);
        return `/logs?${q(`date:[${from} TO ${from}]`)}&page=${pick(20)}`;
      });
      await measure('a date range and a type, oldest first', () => {
        const from = day(firstDay + (1 + pick(DAYS - 9)) * 86_400_000);
        return `/logs?${q(`type:fp AND date:[${from} TO ${day(Date.parse(from) + 7 * 86_400_000)}]`)}&sort=date:1`;
      });
      await measure('checkpoint paging: from=<log_id>&take=100', () => `/logs?from=${logId(firstId + 1 + pick(EVENTS - 200))}&take=100`);
      await measure('include_totals: q=client_id:… (total counted to 1000)', () => `/logs?${q(`client_id:${seedClientId(pick(SEED_CLIENTS))}`)}&include_totals=true`);

      // For the record, not part of the aim: the statistics read a month of the log each time.
      const stats: Figures[] = [];
      for (const [name, path] of [
        ['/stats/active-users (30 days)', '/stats/active-users'],
        ['/stats/daily (the last 30 days)', '/stats/daily'],
      ] as const) {
        stats.push(await timed(name, `${server.url}/api/v2`, token, () => path, (body) => (typeof body === 'number' ? body : list(body)), { requests: 5, warmup: 1 }));
      }

      const rows = figures.map((f) => [f.name, String(f.requests), `${f.p50} ms`, `${f.p95} ms`, `${f.p99} ms`, `${f.max} ms`, String(f.meanItems), f.p95 <= AIM_P95_MS ? 'MET' : 'MISSED']);
      console.log(`\nGET /api/v2/logs on PostgreSQL, ${EVENTS.toLocaleString('en')} events — ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`);
      console.log(renderTable(['search', 'requests', 'p50', 'p95', 'p99', 'max', 'events/answer', `p95 ≤ ${AIM_P95_MS} ms`], rows));
      console.log(`\nfor the record (no aim): ${stats.map((f) => `${f.name} median ${f.p50} ms of ${f.requests}`).join('; ')}`);
      mkdirSync('.bench', { recursive: true });
      writeFileSync('.bench/logs-results.json', `${JSON.stringify({ date: new Date().toISOString(), events: EVENTS, seedSeconds, tableSize: size, aimP95Ms: AIM_P95_MS, figures, stats }, null, 2)}\n`);
      console.log('\nwritten: .bench/logs-results.json');
    } finally {
      await server.stop();
    }
  } finally {
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}

main()
  .catch((error: unknown) => {
    console.error('bench:logs failed:', error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(stopEverything);
