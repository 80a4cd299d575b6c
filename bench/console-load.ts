/**
 * Issue 30's figures for the admin console, in `npm run bench` or alone with `npm run bench:console`: how long the
 * console's first load takes against a Latchkey on this machine whose tenant holds BENCH_CONSOLE_USERS users
 * (default 1,000,000, on PostgreSQL), and what it weighs.
 *
 * Measured in headless Chromium, each kind ROUNDS times after two warm-up loads, median and p95:
 * - first load, signed in to Latchkey: a new browser context (empty HTTP cache, no console token, the Latchkey
 *   session cookie) opens /admin/users until the first page of users is on screen: the page and its assets, the
 *   redirect through /authorize and back, the code exchange, and the Users list (with its total) from the API.
 * - reload with the console's token: the same tab reloaded (assets cached, token in session storage).
 * - the hosted login page, for scale: a new context opens the console's /authorize request and waits for the
 *   password field (the redirect to /u/login and a page the server renders whole).
 * The console's weight is its built scripts, gzipped: what the first load fetches, and the chunks loaded later.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { call } from './measure.js';
import { BENCH_ADMIN, freePort, latchkeyEnv, onCleanup, startTarget, stopEverything, type RunningTarget } from './processes.js';
import { renderTable } from './report.js';
import { SEED_CONNECTIONS, seedUsersPostgres } from './users-seed.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const USERS = Number(process.env.BENCH_CONSOLE_USERS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_CONSOLE_ROUNDS ?? 10);
const TENANT = 'bench-console';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

export interface ConsoleLoadFigures {
  users: number;
  initialScriptsKb: number;
  laterScriptsKb: number;
  firstLoad: { medianMs: number; p95Ms: number };
  reload: { medianMs: number; p95Ms: number };
  hostedLogin: { medianMs: number; p95Ms: number };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const summary = (values: number[]) => ({ medianMs: percentile(values, 50), p95Ms: percentile(values, 95) });

/** The built console's scripts, gzipped: the ones index.html loads, and the rest (loaded when a page needs them). */
function consoleWeight(): { initialKb: number; laterKb: number } {
  const dist = new URL('../packages/console/dist/', import.meta.url).pathname;
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  let initial = 0;
  let later = 0;
  for (const name of readdirSync(join(dist, 'assets')).filter((file) => file.endsWith('.js'))) {
    const size = gzipSync(readFileSync(join(dist, 'assets', name))).length;
    if (html.includes(name)) initial += size;
    else later += size;
  }
  return { initialKb: initial / 1024, laterKb: later / 1024 };
}

async function usersOnScreen(page: Page): Promise<void> {
  await page.getByRole('heading', { name: 'Users' }).waitFor();
  await page.locator('main table tbody tr').first().waitFor();
}

async function timed(action: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

export async function consoleLoadFigures(): Promise<ConsoleLoadFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-console-'));
  const schema = `bench_console_${process.pid}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.query(`create schema ${schema}`);
  let target: RunningTarget | undefined;
  let browser: Browser | undefined;
  try {
    const url = new URL(DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const port = await freePort();
    target = await startTarget('latchkey', { port, workers: 1, env: { ...latchkeyEnv({ databaseUrl: url.toString(), dataDir, port, tenant: TENANT }), LATCHKEY_CONSOLE: 'on' } });
    const form = { grant_type: 'client_credentials', client_id: BENCH_ADMIN.id, client_secret: BENCH_ADMIN.secret, audience: `${target.url}/api/v2/` };
    const token = String((await call(`${target.url}/oauth/token`, { method: 'POST', form })).access_token);
    for (const name of SEED_CONNECTIONS) await call(`${target.url}/api/v2/connections`, { method: 'POST', json: { name, strategy: 'auth0' }, token });
    const seeding = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path=${schema}` });
    await seeding.connect();
    console.log(`· seeding ${USERS.toLocaleString('en')} users on PostgreSQL`);
    await seedUsersPostgres(seeding, TENANT, USERS);
    await seeding.query('analyze users');
    await seeding.end();

    const credentials = JSON.parse(readFileSync(join(dataDir, 'console-credentials.json'), 'utf8')) as { email: string; password: string };
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
    const signedIn = await browser.newContext();
    const first = await signedIn.newPage();
    await first.goto(`${target.url}/admin/`);
    await first.waitForURL(/\/u\/login/);
    await first.getByLabel('E-mail address', { exact: true }).fill(credentials.email);
    await first.getByLabel('Password', { exact: true }).fill(credentials.password);
    await Promise.all([first.waitForURL(`${target.url}/admin/**`), first.click('button[type="submit"]')]);
    const cookies = await signedIn.storageState();
    await signedIn.close();

    const base = target.url;
    // The console's own sign-in request, straight to /authorize (no console page before it).
    const hostedLoginUrl = `${base}/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: 'latchkey-console',
      redirect_uri: `${base}/admin/`,
      scope: 'openid profile email',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'bench',
    }).toString()}`;
    const fresh = async (withSession: boolean): Promise<{ context: BrowserContext; page: Page }> => {
      const context = await browser!.newContext(withSession ? { storageState: { cookies: cookies.cookies, origins: [] } } : {});
      return { context, page: await context.newPage() };
    };
    const firstLoads: number[] = [];
    const reloads: number[] = [];
    const hosted: number[] = [];
    console.log(`· ${ROUNDS} rounds (after 2 to warm up): first load of /admin/users, reload, the hosted login page`);
    for (let round = -2; round < ROUNDS; round += 1) {
      const { context, page } = await fresh(true);
      const firstLoad = await timed(async () => {
        await page.goto(`${base}/admin/users`);
        await usersOnScreen(page);
      });
      const reload = await timed(async () => {
        await page.reload();
        await usersOnScreen(page);
      });
      await context.close();
      const login = await fresh(false);
      const hostedLogin = await timed(async () => {
        await login.page.goto(hostedLoginUrl);
        await login.page.getByLabel('Password', { exact: true }).waitFor();
      });
      await login.context.close();
      if (round >= 0) {
        firstLoads.push(firstLoad);
        reloads.push(reload);
        hosted.push(hostedLogin);
      }
    }
    const weight = consoleWeight();
    return {
      users: USERS,
      initialScriptsKb: weight.initialKb,
      laterScriptsKb: weight.laterKb,
      firstLoad: summary(firstLoads),
      reload: summary(reloads),
      hostedLogin: summary(hosted),
    };
  } finally {
    await browser?.close();
    await target?.stop();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function consoleLoadLines(figures: ConsoleLoadFigures): string[] {
  const ms = (value: number) => `${Math.round(value)} ms`;
  const ratio = (value: number) => `${(value / figures.hostedLogin.medianMs).toFixed(2)}×`;
  return [
    `Admin console (issue 30): ${figures.users.toLocaleString('en')} users on PostgreSQL; scripts ${figures.initialScriptsKb.toFixed(1)} KB gzipped at first load (budget 250 KB), ${figures.laterScriptsKb.toFixed(1)} KB loaded later`,
    renderTable(
      ['load', 'median', 'p95', 'median / hosted login page'],
      [
        ['first load of /admin/users, signed in to Latchkey (new context)', ms(figures.firstLoad.medianMs), ms(figures.firstLoad.p95Ms), ratio(figures.firstLoad.medianMs)],
        ['reload with the console token', ms(figures.reload.medianMs), ms(figures.reload.p95Ms), ratio(figures.reload.medianMs)],
        ['hosted login page (for scale)', ms(figures.hostedLogin.medianMs), ms(figures.hostedLogin.p95Ms), '1.00×'],
      ],
    ),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  onCleanup(() => undefined);
  try {
    const figures = await consoleLoadFigures();
    for (const line of consoleLoadLines(figures)) console.log(line);
  } finally {
    stopEverything();
  }
}
