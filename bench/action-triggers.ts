/**
 * Issue 28's performance aims for the Actions triggers, in `npm run bench` (bench/run.ts), or alone with
 * `node --import tsx bench/action-triggers.ts`. One Latchkey on SQLite, pinned to the server CPU like the other
 * single-process figures, started with LATCHKEY_ACTIONS_TIMEOUT_MS=2000; its actions are created, deployed and bound
 * through the Management API (`/api/v2/actions/actions`, `…/deploy`, `PATCH /api/v2/actions/triggers/{trigger}/bindings`),
 * and every comparison is made on that one server by changing what a trigger is bound to between its rounds.
 *
 * 1. post-login: the median latency of password-realm logins and of refresh-token grants (post-login runs on both)
 *    with nothing bound against one warm action that sets a claim in the ID and access tokens. One request in
 *    flight: the difference of the medians is then what the action adds to one login. (With c in flight on the one
 *    CPU, each waits behind the c - 1 ahead of it, and the difference grows to about c times that.) Aim: ≤ 2 ms.
 * 2. credentials-exchange: client-credentials tokens/s under `BENCH_CONNECTIONS` (autocannon, as the token
 *    scenarios) with nothing bound against one action that sets a claim. Aim: ≥ 0.6.
 * 3. A runaway action: the post-login action loops (`while (true) {}`) for one dedicated client only, whose refresh
 *    grants a background loop sends one after the other, each held until the time limit and answered with a
 *    server_error; meanwhile the p99 of client-credentials tokens and of another client's refresh grants (whose
 *    post-login runs the same action, which sets its claim for them) is measured one request at a time, against
 *    the same without the background loop. The looping isolate's thread is pinned to the server's CPU with the rest
 *    of the process, so this is the strict case: it competes with the event loop for that one CPU. Aim: ≤ 2×.
 *
 * Every answer is checked: a token must carry the claim exactly when its action is bound (read from the JWT's
 * payload), and each background request must be the looping action's timeout, after at least 90 % of the limit.
 * Each figure gets half of `BENCH_SECONDS` of measurement, in two rounds alternating with its counterpart, after
 * half of `BENCH_WARMUP_SECONDS` of warm-up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { call, compare, formPost, type LoadSettings, type Measurement } from './measure.js';
import { freePort, latchkeyEnv, onCleanup, pinSelf, planCpus, startTarget, stopEverything, BENCH_ADMIN } from './processes.js';
import { percentile } from './sequential.js';
import { provisionUserFlows, USER_PASSWORD, type UserFlowSetup } from './user-flows.js';

export const ACTION_AIMS = { addedMedianMs: 2, exchangeRatio: 0.6, runawayP99Ratio: 2 };
/** The execution time limit of the runaway action (LATCHKEY_ACTIONS_TIMEOUT_MS). */
const RUNAWAY_TIMEOUT_MS = 2000;
/** Requests in flight in the latency figures (1. and 3.). */
const IN_FLIGHT = 1;
const CLAIM = 'https://example.com/claim';
const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';

const CLAIM_CODE = `exports.onExecutePostLogin = async (event, api) => {
  api.idToken.setCustomClaim('${CLAIM}', 'x');
  api.accessToken.setCustomClaim('${CLAIM}', 'x');
};`;
const EXCHANGE_CODE = `exports.onExecuteCredentialsExchange = async (event, api) => {
  api.accessToken.setCustomClaim('${CLAIM}', 'x');
};`;
/** Loops until the time limit for one client; for any other it is CLAIM_CODE. */
const runawayCode = (clientId: string) => `exports.onExecutePostLogin = async (event, api) => {
  if (event.client.client_id === ${JSON.stringify(clientId)}) {
    while (true) {}
  }
  api.idToken.setCustomClaim('${CLAIM}', 'x');
  api.accessToken.setCustomClaim('${CLAIM}', 'x');
};`;

/** Latency of one flow, from every timed request (the samples of both rounds together: exact percentiles). */
export interface Latency {
  requests: number;
  p50: number;
  p99: number;
}

export interface AddedLatency {
  without: Latency;
  with: Latency;
  /** with.p50 - without.p50, in ms. */
  addedMs: number;
  met: boolean;
}

export interface P99Ratio {
  alone: Latency;
  besideLoop: Latency;
  ratio: number;
  met: boolean;
}

export interface ActionTriggerFigures {
  inFlight: number;
  postLogin: { login: AddedLatency; refresh: AddedLatency };
  credentialsExchange: { without: Measurement; with: Measurement; ratio: number; met: boolean };
  runaway: {
    timeoutMs: number;
    /** Background requests answered (each one a loop to the limit) and their median duration. */
    loopingRequests: number;
    loopingMedianMs: number;
    tokens: P99Ratio;
    refresh: P99Ratio;
  };
}

/** The claim CLAIM in a JWT's payload (undefined when absent or not a JWT). */
function claimIn(jwt: unknown): unknown {
  if (typeof jwt !== 'string') return undefined;
  const payload = jwt.split('.')[1];
  if (payload === undefined) return undefined;
  return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>)[CLAIM];
}

function expectClaim(flow: string, jwt: unknown, bound: boolean): void {
  const value = claimIn(jwt);
  if (bound ? value !== 'x' : value !== undefined) throw new Error(`${flow}: the token ${bound ? 'lacks' : 'carries'} the action's claim (${String(value)})`);
}

function latencyOf(durations: number[]): Latency {
  const sorted = [...durations].sort((a, b) => a - b);
  return { requests: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** `inFlight` loops of `once` for `ms`; answers each completion's duration. */
async function timedLoops(once: (loop: number) => Promise<void>, inFlight: number, ms: number): Promise<number[]> {
  const durations: number[] = [];
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: inFlight }, async (_, loop) => {
      while (performance.now() < until) {
        const started = performance.now();
        await once(loop);
        durations.push(performance.now() - started);
      }
    }),
  );
  return durations;
}

/** One condition of a latency comparison: set up before each of its runs (and undone after), then its flows timed in turn. */
interface Condition {
  enter: () => Promise<void>;
  leave?: () => Promise<void>;
}

/**
 * Two conditions compared on the same flows, as `compare` (measure.ts) does for autocannon targets: each flow warmed
 * up under each condition, then the measured time cut into rounds that alternate between the conditions. Each flow
 * gets `seconds` under each condition in all. Answers the durations by condition, then by flow.
 */
async function compareConditions(conditions: [Condition, Condition], flows: ((loop: number) => Promise<void>)[], timing: { seconds: number; warmupSeconds: number }, rounds = 2): Promise<number[][][]> {
  const samples = conditions.map(() => flows.map((): number[] => []));
  const pass = async (ms: number, keep: boolean) => {
    for (const [c, condition] of conditions.entries()) {
      await condition.enter();
      try {
        for (const [f, flow] of flows.entries()) {
          const durations = await timedLoops(flow, IN_FLIGHT, ms);
          if (keep) samples[c]?.[f]?.push(...durations);
        }
      } finally {
        await condition.leave?.();
      }
    }
  };
  await pass(timing.warmupSeconds * 1000, false);
  for (let round = 0; round < rounds; round += 1) await pass((timing.seconds * 1000) / rounds, true);
  return samples;
}

const added = (without: number[], withAction: number[]): AddedLatency => {
  const a = latencyOf(without);
  const b = latencyOf(withAction);
  const addedMs = b.p50 - a.p50;
  return { without: a, with: b, addedMs, met: addedMs <= ACTION_AIMS.addedMedianMs };
};

const p99Ratio = (alone: number[], besideLoop: number[]): P99Ratio => {
  const a = latencyOf(alone);
  const b = latencyOf(besideLoop);
  const ratio = b.p99 / Math.max(0.01, a.p99);
  return { alone: a, besideLoop: b, ratio, met: ratio <= ACTION_AIMS.runawayP99Ratio };
};

/**
 * The background of 3.: refresh grants of the looping client one after the other until stopped. Each must be held
 * to the time limit and refused as the action's timeout (a refused refresh keeps its token, so one token serves all).
 */
function runawayLoad(tokenUrl: string, form: Record<string, string>) {
  let running = true;
  const durations: number[] = [];
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const response = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...form, grant_type: 'refresh_token' }).toString(),
      });
      const text = await response.text();
      const took = performance.now() - started;
      if (response.status !== 500 || !text.includes('server_error') || !text.includes('ran longer than its limit')) {
        throw new Error(`the looping action's refresh answered ${response.status} ${text}`);
      }
      if (took < RUNAWAY_TIMEOUT_MS * 0.9) throw new Error(`the looping action's refresh was answered after ${took.toFixed(0)} ms, before the ${RUNAWAY_TIMEOUT_MS} ms limit`);
      durations.push(took);
    }
  })();
  // Kept until stop() reads it: a failure is reported there, not as an unhandled rejection meanwhile.
  const outcome = loop.then(
    () => undefined,
    (error: unknown) => error,
  );
  return {
    async stop(): Promise<number[]> {
      running = false;
      const error = await outcome;
      if (error !== undefined) throw error;
      return durations;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the three comparisons on a Latchkey of its own (in `dataDir`) pinned to `affinity`. */
export async function actionTriggerFigures(options: { settings: LoadSettings; affinity: string | undefined; dataDir: string }): Promise<ActionTriggerFigures> {
  const { settings, affinity } = options;
  const timing = { seconds: settings.seconds / 2, warmupSeconds: settings.warmupSeconds / 2 };
  const port = await freePort();
  const server = await startTarget('latchkey', {
    port,
    workers: 1,
    ...(affinity !== undefined ? { cpus: affinity } : {}),
    env: { ...latchkeyEnv({ databaseUrl: `sqlite:${join(options.dataDir, `actions-${port}.db`)}`, dataDir: options.dataDir, port }), LATCHKEY_ACTIONS_TIMEOUT_MS: String(RUNAWAY_TIMEOUT_MS) },
  });
  try {
    const tokenUrl = `${server.url}/oauth/token`;
    const adminForm = { grant_type: 'client_credentials', client_id: BENCH_ADMIN.id, client_secret: BENCH_ADMIN.secret, audience: `${server.url}/api/v2/` };
    const token = String((await call(tokenUrl, { method: 'POST', form: adminForm })).access_token);
    const management = (method: string, path: string, json?: unknown) => call(`${server.url}/api/v2${path}`, { method, ...(json !== undefined ? { json } : {}), token });

    /** Created, checked built, deployed: the platform's sequence. Answers the action's id. */
    const deployedAction = async (name: string, trigger: string, code: string) => {
      const action = await management('POST', '/actions/actions', { name, supported_triggers: [{ id: trigger, version: 'v3' }], code, runtime: 'node22' });
      if (action.status !== 'built') throw new Error(`action ${name}: ${String(action.status)} ${JSON.stringify(action.errors)}`);
      await management('POST', `/actions/actions/${String(action.id)}/deploy`);
      return String(action.id);
    };
    const bind = (trigger: string, actionId?: string) =>
      management('PATCH', `/actions/triggers/${trigger}/bindings`, { bindings: actionId === undefined ? [] : [{ ref: { type: 'action_id', value: actionId } }] });

    // A web application with one user per loop, and a second application whose post-login the runaway action loops in.
    const setup: UserFlowSetup = await provisionUserFlows(server.url, token, IN_FLIGHT);
    const clientForm = { client_id: setup.clientId, client_secret: setup.clientSecret };
    const loopClient = await management('POST', '/clients', { name: 'Bench runaway', app_type: 'regular_web', grant_types: ['refresh_token', PASSWORD_REALM] });
    const loopForm = { client_id: String(loopClient.client_id), client_secret: String(loopClient.client_secret) };
    const [connection] = (await management('GET', `/connections?name=${setup.connection}`)) as unknown as { id: string }[];
    await management('PATCH', `/connections/${String(connection?.id)}`, { enabled_clients: [setup.clientId, loopForm.client_id] });
    const passwordLogin = (form: Record<string, string>, user: number, scope: string) =>
      call(tokenUrl, { method: 'POST', form: { ...form, grant_type: PASSWORD_REALM, username: setup.emails[user] ?? setup.email, password: USER_PASSWORD, realm: setup.connection, scope } });
    // Its token is taken before the runaway action is bound; refused refreshes leave it in force.
    const loopRefreshToken = String((await passwordLogin(loopForm, 0, 'openid offline_access')).refresh_token);

    const claimAction = await deployedAction('bench-post-login-claim', 'post-login', CLAIM_CODE);
    const exchangeAction = await deployedAction('bench-exchange-claim', 'credentials-exchange', EXCHANGE_CODE);
    const runawayAction = await deployedAction('bench-runaway', 'post-login', runawayCode(loopForm.client_id));

    // 1. post-login: logins and refresh grants, nothing bound against the claim action.
    let bound = false;
    const chains = await Promise.all(Array.from({ length: IN_FLIGHT }, async (_, loop) => String((await passwordLogin(clientForm, loop, 'openid offline_access')).refresh_token)));
    const login = async (loop: number) => expectClaim('password-realm login', (await passwordLogin(clientForm, loop, 'openid')).id_token, bound);
    const refresh = async (loop: number) => {
      const answer = await call(tokenUrl, { method: 'POST', form: { ...clientForm, grant_type: 'refresh_token', refresh_token: chains[loop] ?? '' } });
      chains[loop] = String(answer.refresh_token);
      expectClaim('refresh-token grant', answer.id_token, bound);
    };
    const bindClaim = (on: boolean) => async () => {
      await bind('post-login', on ? claimAction : undefined);
      bound = on;
    };
    console.log('  post-login: password-realm logins and refresh grants, nothing bound, then the claim action');
    const [withoutPostLogin, withPostLogin] = await compareConditions([{ enter: bindClaim(false) }, { enter: bindClaim(true) }], [login, refresh], timing);

    // 2. credentials-exchange: tokens/s under load, nothing bound against the claim action.
    console.log('  credentials-exchange: client-credentials tokens/s, nothing bound, then the claim action');
    await bind('post-login');
    const exchange = (on: boolean) => ({
      ...formPost(tokenUrl, adminForm),
      verifyBody: (body: string) => {
        const claim = claimIn(/"access_token":"([^"]+)"/.exec(body)?.[1]);
        return on ? claim === 'x' : claim === undefined && body.includes('"access_token":"ey');
      },
      beforeRun: async () => {
        await bind('credentials-exchange', on ? exchangeAction : undefined);
      },
    });
    const [exchangeWithout, exchangeWith] = (await compare(
      [
        { name: 'client credentials, credentials-exchange unbound', request: exchange(false) },
        { name: 'client credentials, one credentials-exchange action', request: exchange(true) },
      ],
      { ...settings, ...timing, seconds: settings.seconds },
    )) as [Measurement, Measurement];
    await bind('credentials-exchange');

    // 3. A runaway action: tokens and another client's refresh one at a time, alone and beside the loop.
    console.log(`  a runaway post-login action (${RUNAWAY_TIMEOUT_MS} ms limit): client-credentials and another client's refresh, alone and beside it`);
    await bind('post-login', runawayAction);
    bound = true;
    const tokens = async () => {
      const answer = await call(tokenUrl, { method: 'POST', form: adminForm });
      if (typeof answer.access_token !== 'string') throw new Error('client credentials: no access token');
    };
    let background: ReturnType<typeof runawayLoad> | undefined;
    const looping: number[] = [];
    const [alone, besideLoop] = await compareConditions(
      [
        { enter: async () => {} },
        {
          enter: async () => {
            background = runawayLoad(tokenUrl, { ...loopForm, refresh_token: loopRefreshToken });
            // Long enough for its first request to reach the action's loop.
            await sleep(200);
          },
          leave: async () => {
            looping.push(...((await background?.stop()) ?? []));
            background = undefined;
          },
        },
      ],
      [tokens, refresh],
      timing,
    );
    if (looping.length === 0) throw new Error('the looping action answered no request');
    await bind('post-login');

    const sample = (side: number[][] | undefined, flow: number) => side?.[flow] ?? [];
    return {
      inFlight: IN_FLIGHT,
      postLogin: { login: added(sample(withoutPostLogin, 0), sample(withPostLogin, 0)), refresh: added(sample(withoutPostLogin, 1), sample(withPostLogin, 1)) },
      credentialsExchange: { without: exchangeWithout, with: exchangeWith, ratio: exchangeWith.rps / exchangeWithout.rps, met: exchangeWith.rps / exchangeWithout.rps >= ACTION_AIMS.exchangeRatio },
      runaway: {
        timeoutMs: RUNAWAY_TIMEOUT_MS,
        loopingRequests: looping.length,
        loopingMedianMs: latencyOf(looping).p50,
        tokens: p99Ratio(sample(alone, 0), sample(besideLoop, 0)),
        refresh: p99Ratio(sample(alone, 1), sample(besideLoop, 1)),
      },
    };
  } finally {
    await server.stop();
  }
}

/** The printed block, one aim line per figure. */
export function actionTriggerLines(figures: ActionTriggerFigures, setUp: string): string {
  const verdict = (met: boolean) => (met ? 'MET' : 'MISSED');
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const addedLine = (label: string, side: AddedLatency) =>
    `  ${label}  median ${ms(side.without.p50)} unbound, ${ms(side.with.p50)} with the action: ${side.addedMs >= 0 ? '+' : ''}${ms(side.addedMs)} (aim ≤ ${ACTION_AIMS.addedMedianMs} ms; ` +
    `p99 ${ms(side.without.p99)} / ${ms(side.with.p99)}; ${side.without.requests} / ${side.with.requests} requests)  ${verdict(side.met)}`;
  const p99Line = (label: string, side: P99Ratio) =>
    `  ${label}  p99 ${ms(side.alone.p99)} alone, ${ms(side.besideLoop.p99)} beside the loop: ${side.ratio.toFixed(2)}× (aim ≤ ${ACTION_AIMS.runawayP99Ratio}×; ` +
    `median ${ms(side.alone.p50)} / ${ms(side.besideLoop.p50)}; ${side.alone.requests} / ${side.besideLoop.requests} requests)  ${verdict(side.met)}`;
  const { postLogin, credentialsExchange: exchange, runaway } = figures;
  return [
    `\nActions triggers (${setUp}; actions bound through the Management API, compared in alternate rounds on one server):`,
    `  one warm post-login action setting a claim in both tokens, ${figures.inFlight} request in flight:`,
    addedLine('  password-realm login', postLogin.login),
    addedLine('  refresh-token grant ', postLogin.refresh),
    `  one warm credentials-exchange action setting a claim: client-credentials ${exchange.without.rps.toFixed(0)}/s unbound, ${exchange.with.rps.toFixed(0)}/s with it, ` +
      `ratio ${exchange.ratio.toFixed(3)} (aim ≥ ${ACTION_AIMS.exchangeRatio}; p99 ${exchange.without.p99} / ${exchange.with.p99} ms)  ${verdict(exchange.met)}`,
    `  a post-login action looping to its ${runaway.timeoutMs} ms limit for one client (${runaway.loopingRequests} background refresh grants, answered after ${runaway.loopingMedianMs.toFixed(0)} ms median), ` +
      `${figures.inFlight} request in flight:`,
    p99Line('  client-credentials tokens     ', runaway.tokens),
    p99Line("  another client's refresh grant", runaway.refresh),
  ].join('\n');
}

// Alone: `node --import tsx bench/action-triggers.ts` (the same settings as `npm run bench`).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const settings: LoadSettings = {
    seconds: Number(process.env.BENCH_SECONDS ?? 8),
    warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 3),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-actions-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const plan = planCpus();
  if (plan) pinSelf(plan.loadCpus);
  const setUp = plan ? 'one process, pinned to 1 CPU' : 'one process';
  console.log(`· Actions triggers (${setUp})`);
  actionTriggerFigures({ settings, affinity: plan?.serverCpu, dataDir })
    .then((figures) => {
      console.log(actionTriggerLines(figures, setUp));
      console.log(`\n${JSON.stringify(figures)}`);
    })
    .catch((error: unknown) => {
      console.error('bench failed:', error instanceof Error ? error.message : error);
      process.exitCode = 1;
    })
    .finally(stopEverything);
}
