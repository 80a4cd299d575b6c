/**
 * `npm run bench:users` (issue 26), also run by `npm run bench` after the token and login figures:
 * 1. User search (`GET /api/v2/users?q=`) on PostgreSQL holding 1,000,000 users and on SQLite holding 100,000, seeded
 *    in bulk straight into the table (bench/users-seed.ts): an exact e-mail, an e-mail prefix, a name prefix, a
 *    metadata value, and a connection with a date range sorted by created_at, each request timed one at a time
 *    with other values. Aim: p95 ≤ 50 ms on both.
 * 2. Bulk import on PostgreSQL (the same database, beside the million): files of users with bcrypt hashes, at the
 *    platform's 500 KB limit each, uploaded at once; users per second from the first upload to the last job
 *    completed. Aim: ≥ 5,000/s.
 * 3. Export of every user on PostgreSQL as JSON lines, by a server process started for it on the same database;
 *    its resident memory is sampled while the export runs and its peak over the process's life read at the end
 *    (VmHWM). The file is downloaded through the job's link and
 *    its lines counted as they stream. Aim: under 300 MB.
 * 4. The cost of the search indexes (migration 0009) to what a server does most: client-credentials tokens/s and
 *    authorization-code logins/s of two servers on SQLite files holding 100,000 users each, one as shipped and
 *    one with those indexes dropped, pinned to the server CPU and loaded in four alternate rounds. Aim: ≥ 0.95.
 * 5. The cost of RBAC and organizations (issue 27) to logins and refresh: on one SQLite server, users who log in to
 *    an organization where they hold 10 roles with 200 permissions across 3 APIs, against users holding no role
 *    and logging in to no organization, both logging in to and refreshing for an API with `enforce_policies` and
 *    the `access_token_authz` dialect, in alternate rounds. Aim: ≥ 0.9.
 * Prints a table and writes .bench/users-results.json. Settings: BENCH_PG_USERS (1000000), BENCH_SQLITE_USERS
 * (100000), BENCH_USER_REQUESTS (200 per search), BENCH_IMPORT_FILES (6), BENCH_DATABASE_URL, and BENCH_SECONDS,
 * BENCH_WARMUP_SECONDS, BENCH_CONNECTIONS as for `npm run bench`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createGunzip } from 'node:zlib';
import Database from 'better-sqlite3';
import bcrypt from 'bcryptjs';
import pg from 'pg';
import { call, compare, formPost, type LoadSettings } from './measure.js';
import { BENCH_ADMIN, freePort, latchkeyEnv, onCleanup, pinSelf, planCpus, startTarget, stopEverything, type RunningTarget } from './processes.js';
import { renderTable } from './report.js';
import { chooser, timed, type Figures } from './sequential.js';
import { compareLoopRates, oneLogin, provisionUserFlows, refreshLoad } from './user-flows.js';
import { GIVEN, SEED_CONNECTIONS, SEED_START_MS, seedEmail, seedUsersPostgres, seedUsersSqlite } from './users-seed.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PG_USERS = Number(process.env.BENCH_PG_USERS ?? 1_000_000);
const SQLITE_USERS = Number(process.env.BENCH_SQLITE_USERS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_USER_REQUESTS ?? 200);
const IMPORT_FILES = Number(process.env.BENCH_IMPORT_FILES ?? 6);
const WARMUP = 20;
const settings: LoadSettings = {
  seconds: Number(process.env.BENCH_SECONDS ?? 8),
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 3),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
};
const AIMS = { searchP95Ms: 50, importPerSecond: 5000, exportPeakMb: 300, indexCost: 0.95, rbacCost: 0.9 };
const TENANT = 'bench-users';
const ADMIN = BENCH_ADMIN;
const DEADLINE_MS = 15 * 60_000;
/** The indexes migration 0009-user-search-indexes adds (the index-cost comparison drops them on one server). */
const SEARCH_INDEXES = [
  'users_created_idx',
  'users_updated_idx',
  'users_connection_created_idx',
  'users_username_idx',
  'users_name_idx',
  'users_given_name_idx',
  'users_family_name_idx',
  'users_nickname_idx',
  'users_phone_number_idx',
  'users_last_login_idx',
  'users_logins_idx',
];

const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-users-'));
onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
const plan = planCpus();
const affinity = plan?.serverCpu;

interface Server {
  target: RunningTarget;
  token: string;
}

async function startLatchkey(databaseUrl: string): Promise<Server> {
  const port = await freePort();
  const target = await startTarget('latchkey', {
    port,
    workers: 1,
    ...(affinity !== undefined ? { cpus: affinity } : {}),
    env: latchkeyEnv({ databaseUrl, dataDir, port, tenant: TENANT }),
  });
  const form = { grant_type: 'client_credentials', client_id: ADMIN.id, client_secret: ADMIN.secret, audience: `${target.url}/api/v2/` };
  const token = String((await call(`${target.url}/oauth/token`, { method: 'POST', form })).access_token);
  return { target, token };
}

const api = (server: Server, path: string, json: unknown) => call(`${server.target.url}/api/v2${path}`, { method: 'POST', json, token: server.token });

/** The seed's connections, created through the API so that they are real (the users are then seeded into them). */
async function createSeedConnections(server: Server): Promise<void> {
  for (const name of SEED_CONNECTIONS) await api(server, '/connections', { name, strategy: 'auth0' });
}

/**
 * After seeding SQLite (synchronous: this process's event loop stands still meanwhile), let fetch's timers run: a
 * kept-alive connection the server closed during the seeding is dropped then, not reused ("other side closed").
 */
const afterSyncSeeding = () => new Promise((resolve) => setTimeout(resolve, 2000));

const q = (query: string) => `q=${encodeURIComponent(query)}`;
const listed = (body: unknown) => (Array.isArray(body) ? body.length : ((body as { users?: unknown[] }).users?.length ?? 0));

/** The five searches of the issue, over `count` seeded users. */
async function searches(server: Server, count: number): Promise<Figures[]> {
  const pick = chooser(26);
  const day = (n: number) => new Date(SEED_START_MS + n * 86_400_000).toISOString().slice(0, 10);
  const cases: [string, () => string][] = [
    ['an exact e-mail: email:"…"', () => `/users?${q(`email:"${seedEmail(pick(count))}"`)}`],
    // user<n> cut to 8 characters: user1234* matches user1234, user12340-user12349, user123400-…
    ['an e-mail prefix: email:user1234*', () => `/users?${q(`email:${`user${Math.floor(count / 10) + pick(count - Math.floor(count / 10))}`.slice(0, 8)}*`)}`],
    ['a name prefix: name:Ada*', () => `/users?${q(`name:${GIVEN[pick(GIVEN.length)] ?? 'Ada'}*`)}`],
    ['a metadata value: user_metadata.customer:"c…"', () => `/users?${q(`user_metadata.customer:"c${pick(count)}"`)}`],
    [
      'a connection and 15 days, sort=created_at:1',
      () => {
        const from = pick(700);
        return `/users?${q(`identities.connection:"${SEED_CONNECTIONS[1]}" AND created_at:[${day(from)} TO ${day(from + 15)}]`)}&sort=created_at:1`;
      },
    ],
  ];
  const figures: Figures[] = [];
  for (const [name, pathOf] of cases) {
    const measured = await timed(name, `${server.target.url}/api/v2`, server.token, pathOf, listed, { requests: REQUESTS, warmup: WARMUP });
    console.log(`  ${name}: p95 ${measured.p95} ms`);
    figures.push(measured);
  }
  return figures;
}

/** The memory of a process from /proc: resident now, and the most it ever was. */
function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function waitForJob(server: Server, id: string, timeoutMs: number, onPoll?: () => void): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    onPoll?.();
    const response = await fetch(`${server.target.url}/api/v2/jobs/${id}`, { headers: { authorization: `Bearer ${server.token}` } });
    const job = (await response.json()) as Record<string, unknown>;
    if (job.status === 'completed') return job;
    if (job.status === 'failed' || response.status !== 200) throw new Error(`job ${id}: ${JSON.stringify(job)}`);
    if (Date.now() > deadline) throw new Error(`job ${id} not completed within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface ImportFigures {
  users: number;
  files: number;
  seconds: number;
  perSecond: number;
}

/** Files of users with one bcrypt hash each (computed once: the import stores hashes, it does not check them). */
async function importRate(server: Server): Promise<ImportFigures> {
  const connection = await api(server, '/connections', { name: 'bench-imported', strategy: 'auth0' });
  const hash = bcrypt.hashSync('an imported password 1', 10);
  const files: string[] = [];
  let next = 0;
  for (let f = 0; f < IMPORT_FILES; f += 1) {
    const records: string[] = [];
    let size = 2;
    for (;;) {
      const record = JSON.stringify({ email: `imported${next}@example.com`, email_verified: true, name: `Imported ${next}`, user_metadata: { source: 'bench' }, password_hash: hash });
      if (size + record.length + 1 > 500 * 1024) break;
      records.push(record);
      size += record.length + 1;
      next += 1;
    }
    files.push(`[${records.join(',')}]`);
  }
  const started = performance.now();
  const ids: string[] = [];
  for (const file of files) {
    const form = new FormData();
    form.append('users', new Blob([file], { type: 'application/json' }), 'users.json');
    form.append('connection_id', String(connection.id));
    const response = await fetch(`${server.target.url}/api/v2/jobs/users-imports`, { method: 'POST', headers: { authorization: `Bearer ${server.token}` }, body: form });
    const job = (await response.json()) as Record<string, unknown>;
    if (response.status !== 201) throw new Error(`import upload: ${response.status} ${JSON.stringify(job)}`);
    ids.push(String(job.id));
  }
  let inserted = 0;
  for (const id of ids) inserted += Number(((await waitForJob(server, id, 300_000)).summary as { inserted: number }).inserted);
  const seconds = (performance.now() - started) / 1000;
  if (inserted !== next) throw new Error(`import: ${inserted} users inserted of ${next}`);
  return { users: inserted, files: files.length, seconds, perSecond: inserted / seconds };
}

interface ExportFigures {
  users: number;
  seconds: number;
  fileMb: number;
  rssBeforeMb: number;
  peakDuringMb: number;
  lifetimePeakMb: number;
}

async function exportMemory(server: Server, expected: number): Promise<ExportFigures> {
  const pid = server.target.pid;
  const rssBeforeMb = memoryMb(pid).rss;
  let peakDuringMb = rssBeforeMb;
  const sample = () => (peakDuringMb = Math.max(peakDuringMb, memoryMb(pid).rss));
  const sampler = setInterval(sample, 100);
  const started = performance.now();
  try {
    const created = await api(server, '/jobs/users-exports', { format: 'json' });
    const job = await waitForJob(server, String(created.id), 600_000, sample);
    const seconds = (performance.now() - started) / 1000;
    // The download, streamed: lines counted as they are unzipped, never the whole file in memory.
    const response = await fetch(String(job.location));
    if (response.status !== 200 || !response.body) throw new Error(`export download: ${response.status}`);
    let bytes = 0;
    let lines = 0;
    const gunzip = createGunzip();
    const counting = Readable.fromWeb(response.body as WebReadableStream).on('data', (chunk: Buffer) => (bytes += chunk.length));
    for await (const chunk of counting.pipe(gunzip)) {
      for (const byte of chunk as Buffer) if (byte === 10) lines += 1;
    }
    sample();
    if (lines !== expected) throw new Error(`export: ${lines} lines for ${expected} users`);
    return { users: lines, seconds, fileMb: bytes / 1024 / 1024, rssBeforeMb, peakDuringMb, lifetimePeakMb: memoryMb(pid).peak };
  } finally {
    clearInterval(sampler);
  }
}

interface IndexCost {
  tokens: { indexed: number; without: number; ratio: number };
  logins: { indexed: number; without: number; ratio: number };
}

/** Two SQLite servers with 100,000 users each, one without the search indexes, loaded in alternate rounds. */
async function indexCost(): Promise<IndexCost> {
  const sides: { server: Server; file: string }[] = [];
  for (const name of ['indexed', 'without']) {
    const file = join(dataDir, `index-cost-${name}.db`);
    const server = await startLatchkey(`sqlite:${file}`);
    const db = new Database(file);
    try {
      db.pragma('busy_timeout = 5000');
      seedUsersSqlite(db, TENANT, SQLITE_USERS);
      if (name === 'without') for (const index of SEARCH_INDEXES) db.exec(`drop index ${index}`);
    } finally {
      db.close();
    }
    await afterSyncSeeding();
    sides.push({ server, file });
  }
  try {
    const [indexed, without] = sides.map((side) => side.server) as [Server, Server];
    const form = (server: Server) => formPost(`${server.target.url}/oauth/token`, { grant_type: 'client_credentials', client_id: ADMIN.id, client_secret: ADMIN.secret, audience: `${server.target.url}/api/v2/` });
    const [tokensIndexed, tokensWithout] = await compare(
      [
        { name: 'tokens, search indexes', request: form(indexed) },
        { name: 'tokens, no search indexes', request: form(without) },
      ],
      settings,
      4,
    );
    const loops = settings.connections;
    const setupIndexed = await provisionUserFlows(indexed.target.url, indexed.token, loops);
    const setupWithout = await provisionUserFlows(without.target.url, without.token, loops);
    const [loginsIndexed, loginsWithout] = await compareLoopRates(
      [(loop) => oneLogin(indexed.target.url, setupIndexed, loop), (loop) => oneLogin(without.target.url, setupWithout, loop)],
      loops,
      settings.seconds,
      settings.warmupSeconds,
      { rounds: 4 },
    );
    if (!tokensIndexed || !tokensWithout || !loginsIndexed || !loginsWithout) throw new Error('index cost: a comparison answered too few rates');
    return {
      tokens: { indexed: tokensIndexed.rps, without: tokensWithout.rps, ratio: tokensIndexed.rps / tokensWithout.rps },
      logins: { indexed: loginsIndexed.perSecond, without: loginsWithout.perSecond, ratio: loginsIndexed.perSecond / loginsWithout.perSecond },
    };
  } finally {
    for (const side of sides) await side.server.target.stop();
  }
}

interface RbacCost {
  logins: { withRoles: number; without: number; ratio: number };
  refresh: { withRoles: number; without: number; ratio: number };
}

/**
 * Users with 10 roles holding 200 permissions over 3 APIs (the roles hold 20 each, some shared) and users with
 * none, on one server, logging in and refreshing for the first API, which enforces policies and puts the
 * permissions in the token.
 */
async function rbacCost(): Promise<RbacCost> {
  const server = await startLatchkey(`sqlite:${join(dataDir, 'rbac.db')}`);
  try {
    const loops = settings.connections;
    const apis = ['https://rbac-1.bench.example/', 'https://rbac-2.bench.example/', 'https://rbac-3.bench.example/'];
    const scopesOf = (api: number) => Array.from({ length: api === 0 ? 68 : 66 }, (_, i) => `perm:${api}:${i}`);
    for (const [i, identifier] of apis.entries()) {
      await api(server, '/resource-servers', { identifier, name: `RBAC ${i}`, allow_offline_access: true, enforce_policies: i === 0, token_dialect: 'access_token_authz', scopes: scopesOf(i).map((value) => ({ value })) });
    }
    const all = apis.flatMap((identifier, i) => scopesOf(i).map((permission_name) => ({ resource_server_identifier: identifier, permission_name })));
    const roles: string[] = [];
    for (let r = 0; r < 10; r += 1) {
      const role = await api(server, '/roles', { name: `bench-role-${r}` });
      roles.push(String(role.id));
      await api(server, `/roles/${String(role.id)}/permissions`, { permissions: all.slice(r * 20, r * 20 + 20) });
    }
    // Half the users are members of an organization holding every role there (and outside it), the other half
    // hold no role and log in to no organization.
    const setup = await provisionUserFlows(server.target.url, server.token, loops * 2);
    const management = (method: string, path: string, json?: unknown) => call(`${server.target.url}/api/v2${path}`, { method, json, token: server.token });
    await management('PATCH', `/clients/${setup.clientId}`, { organization_usage: 'allow' });
    const organization = String((await api(server, '/organizations', { name: 'bench-org' })).id);
    const [connection] = (await management('GET', `/connections?name=${setup.connection}`)) as unknown as { id: string }[];
    await api(server, `/organizations/${organization}/enabled_connections`, { connection_id: connection?.id });
    const withRoles = setup.emails.slice(0, loops);
    for (const email of withRoles) {
      const [user] = (await management('GET', `/users-by-email?email=${encodeURIComponent(email)}`)) as unknown as { user_id: string }[];
      const userId = encodeURIComponent(String(user?.user_id));
      await api(server, `/users/${userId}/roles`, { roles });
      await api(server, `/organizations/${organization}/members`, { members: [user?.user_id] });
      await api(server, `/organizations/${organization}/members/${userId}/roles`, { roles });
    }
    const audience = apis[0] as string;
    const scope = `openid profile email offline_access ${scopesOf(0).slice(0, 20).join(' ')}`;
    const inOrganization = { audience, scope, organization };
    const [loginsWith, loginsWithout] = await compareLoopRates(
      [(loop) => oneLogin(server.target.url, setup, loop, inOrganization), (loop) => oneLogin(server.target.url, setup, loops + loop, { audience, scope })],
      loops,
      settings.seconds,
      settings.warmupSeconds,
      { rounds: 4 },
    );
    const tokenUrl = `${server.target.url}/oauth/token`;
    const clientForm = { client_id: setup.clientId, client_secret: setup.clientSecret };
    // Chains started by a login (an organization's is kept in its chain), for users of each half in turn.
    let turn = 0;
    const next = (offset: number, authorize: Record<string, string>) => async () => String((await oneLogin(server.target.url, setup, offset + (turn++ % loops), authorize)).refresh_token);
    const [refreshWith, refreshWithout] = await compare(
      [
        { name: 'refresh, in an organization, 10 roles and 200 permissions', request: refreshLoad(tokenUrl, clientForm, next(0, inOrganization), settings.connections) },
        { name: 'refresh, no roles, no organization', request: refreshLoad(tokenUrl, clientForm, next(loops, { audience, scope }), settings.connections) },
      ],
      settings,
      4,
    );
    if (!loginsWith || !loginsWithout || !refreshWith || !refreshWithout) throw new Error('RBAC cost: a comparison answered too few rates');
    return {
      logins: { withRoles: loginsWith.perSecond, without: loginsWithout.perSecond, ratio: loginsWith.perSecond / loginsWithout.perSecond },
      refresh: { withRoles: refreshWith.rps, without: refreshWithout.rps, ratio: refreshWith.rps / refreshWithout.rps },
    };
  } finally {
    await server.target.stop();
  }
}

async function main() {
  setTimeout(() => {
    console.error(`bench:users failed: still running after ${DEADLINE_MS / 60_000} minutes`);
    process.exit(1);
  }, DEADLINE_MS).unref();
  if (plan) pinSelf(plan.loadCpus);
  const results: Record<string, unknown> = { date: new Date().toISOString(), pgUsers: PG_USERS, sqliteUsers: SQLITE_USERS, aims: AIMS };

  // PostgreSQL: a million users, searched; then an import beside them; then an export of them all.
  const schema = `bench_users_${process.pid}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  let pgSearch: Figures[];
  let imported: ImportFigures;
  let exported: ExportFigures;
  try {
    const url = new URL(DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    console.log(`· Latchkey on PostgreSQL (schema ${schema})${affinity ? `, pinned to CPU ${affinity}` : ''}`);
    const server = await startLatchkey(url.toString());
    try {
      await createSeedConnections(server);
      const seeding = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path=${schema}` });
      await seeding.connect();
      console.log(`· seeding ${PG_USERS.toLocaleString('en')} users`);
      const seedStarted = performance.now();
      await seedUsersPostgres(seeding, TENANT, PG_USERS);
      results.pgSeedSeconds = (performance.now() - seedStarted) / 1000;
      results.pgTableSize = (await seeding.query<{ size: string }>(`select pg_size_pretty(pg_total_relation_size('users')) as size`)).rows[0]?.size;
      await seeding.end();
      console.log(`  seeded in ${(results.pgSeedSeconds as number).toFixed(1)} s; the table and its indexes: ${String(results.pgTableSize)}`);
      console.log(`· searches, ${REQUESTS} requests each, one at a time, after ${WARMUP} to warm up`);
      pgSearch = await searches(server, PG_USERS);
      console.log(`· import: ${IMPORT_FILES} files of users with bcrypt hashes, 500 KB each`);
      imported = await importRate(server);
      console.log(`  ${imported.users} users in ${imported.seconds.toFixed(1)} s: ${Math.round(imported.perSecond)}/s`);
    } finally {
      await server.target.stop();
    }
    // The export on a process of its own (the same database), so that its memory is the export's and the start's.
    const exporter = await startLatchkey(url.toString());
    try {
      console.log(`· export of all ${(PG_USERS + imported.users).toLocaleString('en')} users as JSON lines, on a new server process`);
      exported = await exportMemory(exporter, PG_USERS + imported.users);
      console.log(`  ${exported.seconds.toFixed(1)} s, ${exported.fileMb.toFixed(1)} MB gzip; resident memory ${Math.round(exported.rssBeforeMb)} MB before, peak ${Math.round(exported.peakDuringMb)} MB during`);
    } finally {
      await exporter.target.stop();
    }
  } finally {
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }

  // SQLite: a hundred thousand users, the same searches.
  console.log(`· Latchkey on SQLite with ${SQLITE_USERS.toLocaleString('en')} users`);
  const sqliteFile = join(dataDir, 'search.db');
  const sqliteServer = await startLatchkey(`sqlite:${sqliteFile}`);
  let sqliteSearch: Figures[];
  try {
    await createSeedConnections(sqliteServer);
    const db = new Database(sqliteFile);
    db.pragma('busy_timeout = 5000');
    seedUsersSqlite(db, TENANT, SQLITE_USERS);
    db.close();
    await afterSyncSeeding();
    sqliteSearch = await searches(sqliteServer, SQLITE_USERS);
  } finally {
    await sqliteServer.target.stop();
  }

  console.log(`· the search indexes' cost: tokens and logins with and without them (SQLite, ${SQLITE_USERS.toLocaleString('en')} users each)`);
  const cost = await indexCost();
  console.log('· the cost of RBAC and organizations: users in an organization with 10 roles and 200 permissions against users with neither (SQLite)');
  const rbac = await rbacCost();

  const met = (ok: boolean) => (ok ? 'MET' : 'MISSED');
  const searchRows = (dialect: string, figures: Figures[]) =>
    figures.map((f) => [dialect, f.name, `${f.p50} ms`, `${f.p95} ms`, `${f.p99} ms`, String(f.meanItems), met(f.p95 <= AIMS.searchP95Ms)]);
  console.log(`\nUsers at scale — ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}${affinity ? `, server pinned to CPU ${affinity}` : ''}`);
  console.log(
    renderTable(
      ['database', 'search', 'p50', 'p95', 'p99', 'users/answer', `p95 ≤ ${AIMS.searchP95Ms} ms`],
      [...searchRows(`PostgreSQL, ${PG_USERS.toLocaleString('en')}`, pgSearch), ...searchRows(`SQLite, ${SQLITE_USERS.toLocaleString('en')}`, sqliteSearch)],
    ),
  );
  console.log(
    `\nimport (PostgreSQL): ${imported.users} users in ${imported.files} files, ${imported.seconds.toFixed(1)} s, ${Math.round(imported.perSecond)}/s (aim ≥ ${AIMS.importPerSecond})  ${met(imported.perSecond >= AIMS.importPerSecond)}`,
  );
  console.log(
    `export (PostgreSQL): ${exported.users.toLocaleString('en')} users in ${exported.seconds.toFixed(1)} s (${exported.fileMb.toFixed(1)} MB gzip); server resident memory peak ${Math.round(exported.peakDuringMb)} MB during the export, ${Math.round(exported.lifetimePeakMb)} MB over its life (aim < ${AIMS.exportPeakMb})  ${met(exported.lifetimePeakMb < AIMS.exportPeakMb)}`,
  );
  console.log(
    `search indexes' cost (SQLite, ${SQLITE_USERS.toLocaleString('en')} users): client-credentials tokens ${Math.round(cost.tokens.indexed)}/s with, ${Math.round(cost.tokens.without)}/s without, ratio ${cost.tokens.ratio.toFixed(3)}; ` +
      `logins ${cost.logins.indexed.toFixed(1)}/s with, ${cost.logins.without.toFixed(1)}/s without, ratio ${cost.logins.ratio.toFixed(3)} (aim ≥ ${AIMS.indexCost})  ${met(cost.tokens.ratio >= AIMS.indexCost && cost.logins.ratio >= AIMS.indexCost)}`,
  );
  console.log(
    `RBAC and organization cost (SQLite; an API with enforce_policies and access_token_authz): logins ${rbac.logins.withRoles.toFixed(1)}/s in an organization with 10 roles, ${rbac.logins.without.toFixed(1)}/s without either, ratio ${rbac.logins.ratio.toFixed(3)}; ` +
      `refresh ${Math.round(rbac.refresh.withRoles)}/s with, ${Math.round(rbac.refresh.without)}/s without, ratio ${rbac.refresh.ratio.toFixed(3)} (aim ≥ ${AIMS.rbacCost})  ${met(rbac.logins.ratio >= AIMS.rbacCost && rbac.refresh.ratio >= AIMS.rbacCost)}`,
  );
  Object.assign(results, { pgSearch, sqliteSearch, imported, exported, indexCost: cost, rbacCost: rbac });
  mkdirSync('.bench', { recursive: true });
  writeFileSync('.bench/users-results.json', `${JSON.stringify(results, null, 2)}\n`);
  console.log('\nwritten: .bench/users-results.json');
}

main()
  .catch((error: unknown) => {
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
    console.error('bench:users failed:', error instanceof Error ? `${error.message}${cause}` : error);
    process.exitCode = 1;
  })
  .finally(stopEverything);
