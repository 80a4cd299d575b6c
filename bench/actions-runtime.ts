/**
 * Which engine runs tenant Actions (issue 28, §3): isolated-vm (V8 isolates on their own threads, native) against
 * quickjs-emscripten (QuickJS compiled to WebAssembly, run on the calling thread). Both run the same in-engine
 * prelude the runtime uses: the action is loaded as a CommonJS module once, and each execution parses a
 * JSON-marshalled `event`, hands the handler an `api` that records its calls, and returns the recorded commands
 * as JSON. Measured, each with its median:
 *   - cold: a new isolate/runtime and context, compile, load the module and run it once;
 *   - warm: one more execution in the loaded context (a marshalled post-login event, one claim set);
 *   - a fresh context per execution (isolated-vm only: what reusing a context saves);
 *   - memory per isolate/runtime with the module loaded and run once (process RSS growth over a batch);
 *   - the host event loop's worst delay while tenant code loops for 300 ms (does a hostile loop stall the server?);
 *   - Latchkey's own runtime (packages/server/src/services/actions/runtime.ts) end to end: warm, a new version's
 *     first execution, and a burst of eight concurrent executions of one version.
 * Prints one table and the ratios. Under 10 seconds on a 2-CPU machine.
 * Usage: node --import tsx bench/actions-runtime.ts
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import ivm from 'isolated-vm';
import { getQuickJS, shouldInterruptAfterDeadline, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime } from 'quickjs-emscripten';
import { createActionsRuntime } from '../packages/server/src/services/actions/runtime.js';

const COLD_RUNS = 15;
const WARM_RUNS = 3_000;
const MEMORY_BATCH = 30;
const LOOP_MS = 300;

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const ACTION_CODE = `exports.onExecutePostLogin = async (event, api) => {
  api.idToken.setCustomClaim('https://example.com/email', event.user.email);
};`;

/** A post-login event of a realistic size (about 1.5 KB of JSON). */
const EVENT = {
  user: {
    user_id: 'auth0|6650f0c2a1b2c3d4e5f60718',
    email: 'ada@example.com',
    email_verified: true,
    name: 'Ada Lovelace',
    app_metadata: { plan: 'gold', region: 'eu' },
    user_metadata: { theme: 'dark' },
    identities: [{ provider: 'auth0', connection: 'Username-Password-Authentication', user_id: '6650f0c2a1b2c3d4e5f60718', isSocial: false }],
    created_at: '2024-05-24T10:00:00.000Z',
    last_login: '2024-06-01T08:30:00.000Z',
  },
  client: { client_id: 'aBcDeFgHiJkLmNoPqRsTuVwXyZ012345', name: 'My App', metadata: {} },
  connection: { id: 'con_0123456789abcdef', name: 'Username-Password-Authentication', strategy: 'auth0', metadata: {} },
  request: { ip: '203.0.113.7', hostname: 'login.example.com', user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0', language: 'en', query: { scope: 'openid profile email' }, body: {} },
  transaction: { protocol: 'oidc-basic-profile', requested_scopes: ['openid', 'profile', 'email'], redirect_uri: 'https://app.example.com/callback', locale: 'en', ui_locales: [] },
  authorization: { roles: ['admin', 'editor'] },
  stats: { logins_count: 42 },
  authentication: { methods: [{ name: 'pwd', timestamp: '2024-06-01T08:30:00.000Z' }] },
  tenant: { id: 'latchkey' },
  secrets: {},
};
const EVENT_JSON = JSON.stringify(EVENT);

/**
 * The same in-engine code for both engines: `__load(factory)` evaluates the CommonJS module once, `__run(handler,
 * eventJson)` runs one execution and resolves to the recorded commands as JSON.
 */
const PRELUDE = `
const module = { exports: {} };
globalThis.__load = (factory) => { factory(module.exports, module); };
globalThis.__run = async (handlerName, eventJson) => {
  const commands = [];
  const record = (op) => (...args) => { commands.push({ op, args: JSON.parse(JSON.stringify(args)) }); return api; };
  const api = {
    access: { deny: record('access.deny') },
    idToken: { setCustomClaim: record('idToken.setCustomClaim') },
    accessToken: { setCustomClaim: record('accessToken.setCustomClaim') },
  };
  await module.exports[handlerName](JSON.parse(eventJson), api);
  return JSON.stringify(commands);
};`;
const MODULE_SCRIPT = `__load(function (exports, module) {\n${ACTION_CODE}\n});`;
const EXPECTED = JSON.stringify([{ op: 'idToken.setCustomClaim', args: ['https://example.com/email', EVENT.user.email] }]);

function check(output: string) {
  if (output !== EXPECTED) throw new Error(`unexpected result ${output}`);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function timed(runs: number, once: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    await once();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** RSS growth per unit while `count` units built by `make` are alive, then the units are disposed. */
async function memoryPerUnit<T>(count: number, make: () => Promise<T>, dispose: (unit: T) => void): Promise<number> {
  collectGarbage();
  const before = process.memoryUsage().rss;
  const units: T[] = [];
  for (let i = 0; i < count; i += 1) units.push(await make());
  collectGarbage();
  const after = process.memoryUsage().rss;
  units.forEach(dispose);
  return (after - before) / count;
}

/**
 * The host's worst timer lateness (ms) while `block` runs tenant code that loops: a 5 ms ticker, started before
 * the loop, should keep ticking when the engine runs off the host's thread.
 */
async function worstHostDelay(block: () => Promise<unknown>): Promise<number> {
  const TICK_MS = 5;
  let last = performance.now();
  let worst = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - TICK_MS);
    last = now;
  }, TICK_MS);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await block();
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(ticker);
  return worst;
}

// ---- isolated-vm ----

interface IvmUnit {
  isolate: ivm.Isolate;
  run: ivm.Reference<(handler: string, event: string) => Promise<string>>;
}

async function ivmLoad(): Promise<IvmUnit> {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const context = await isolate.createContext();
  await context.eval(PRELUDE);
  const script = await isolate.compileScript(MODULE_SCRIPT);
  await script.run(context);
  const run = (await context.global.get('__run', { reference: true })) as IvmUnit['run'];
  return { isolate, run };
}

const ivmExecute = async (unit: IvmUnit) =>
  check((await unit.run.apply(undefined, ['onExecutePostLogin', EVENT_JSON], { result: { promise: true }, timeout: 5_000 })) as string);

async function measureIsolatedVm() {
  // Memory first, while the process has not yet grown for the other measurements.
  const memory = await memoryPerUnit(
    MEMORY_BATCH,
    async () => {
      const loaded = await ivmLoad();
      await ivmExecute(loaded);
      return loaded;
    },
    (loaded) => loaded.isolate.dispose(),
  );
  const cold = await timed(COLD_RUNS, async () => {
    const unit = await ivmLoad();
    await ivmExecute(unit);
    unit.isolate.dispose();
  });
  const unit = await ivmLoad();
  await ivmExecute(unit);
  const heap = await unit.isolate.getHeapStatistics();
  const warm = await timed(WARM_RUNS, () => ivmExecute(unit));
  const script = await unit.isolate.compileScript(MODULE_SCRIPT);
  const freshContext = await timed(200, async () => {
    const context = await unit.isolate.createContext();
    await context.eval(PRELUDE);
    await script.run(context);
    const run = (await context.global.get('__run', { reference: true })) as IvmUnit['run'];
    await ivmExecute({ isolate: unit.isolate, run });
    context.release();
  });
  unit.isolate.dispose();
  const looping = new ivm.Isolate({ memoryLimit: 64 });
  const loopContext = await looping.createContext();
  const hostDelay = await worstHostDelay(() => loopContext.eval('for (;;) {}', { timeout: LOOP_MS }).catch(() => undefined));
  looping.dispose();
  return { cold, warm, freshContext, memory, heapBytes: heap.used_heap_size + heap.externally_allocated_size, hostDelay };
}

// ---- quickjs-emscripten ----

interface QuickJsUnit {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  run: QuickJSHandle;
}

async function measureQuickJs() {
  const moduleStart = performance.now();
  const quickjs = await getQuickJS();
  const moduleLoad = performance.now() - moduleStart;

  const load = (): QuickJsUnit => {
    const runtime = quickjs.newRuntime();
    runtime.setMemoryLimit(64 * 1024 * 1024);
    runtime.setMaxStackSize(1024 * 1024);
    const context = runtime.newContext();
    context.unwrapResult(context.evalCode(PRELUDE)).dispose();
    context.unwrapResult(context.evalCode(MODULE_SCRIPT)).dispose();
    return { runtime, context, run: context.getProp(context.global, '__run') };
  };
  const execute = async ({ runtime, context, run }: QuickJsUnit) => {
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + 5_000));
    const handler = context.newString('onExecutePostLogin');
    const event = context.newString(EVENT_JSON);
    const promise = context.unwrapResult(context.callFunction(run, context.undefined, handler, event));
    handler.dispose();
    event.dispose();
    const settled = context.resolvePromise(promise);
    runtime.executePendingJobs();
    const output = context.unwrapResult(await settled);
    promise.dispose();
    check(context.getString(output));
    output.dispose();
  };
  const dispose = ({ runtime, context, run }: QuickJsUnit) => {
    run.dispose();
    context.dispose();
    runtime.dispose();
  };

  const memory = await memoryPerUnit(
    MEMORY_BATCH,
    async () => {
      const loaded = load();
      await execute(loaded);
      return loaded;
    },
    dispose,
  );
  const cold = await timed(COLD_RUNS, async () => {
    const unit = load();
    await execute(unit);
    dispose(unit);
  });
  const unit = load();
  await execute(unit);
  const usage = unit.runtime.computeMemoryUsage();
  const heapBytes = (unit.context.dump(usage) as { memory_used_size: number }).memory_used_size;
  usage.dispose();
  const warm = await timed(WARM_RUNS, () => execute(unit));
  dispose(unit);
  const looping = load();
  const hostDelay = await worstHostDelay(async () => {
    looping.runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + LOOP_MS));
    const result = looping.context.evalCode('for (;;) {}');
    if (result.error) result.error.dispose();
    else result.value.dispose();
  });
  dispose(looping);
  return { moduleLoad, cold, warm, memory, heapBytes, hostDelay };
}

// ---- Latchkey's runtime (isolated-vm) ----

async function measureLatchkeyRuntime() {
  const runtime = createActionsRuntime();
  const run = async (version: { actionId: string; versionId: string; code: string }) => {
    const result = await runtime.execute(version, 'onExecutePostLogin', EVENT);
    if (!result.ok) throw new Error(result.error.message);
  };
  const version = { actionId: 'bench-action', versionId: 'bench-version', code: ACTION_CODE };
  const coldStart = performance.now();
  await run(version);
  const cold = performance.now() - coldStart;
  const warm = await timed(WARM_RUNS, () => run(version));
  // A version's first execution, the process being warm (another version ran before): what a newly deployed version pays.
  let deployed = 0;
  const coldVersion = await timed(COLD_RUNS, () => {
    deployed += 1;
    return run({ actionId: `bench-deployed-${deployed}`, versionId: `bench-deployed-${deployed}`, code: ACTION_CODE });
  });
  // Eight executions of one warm version at once (more than it keeps loaded): what a burst of logins pays.
  const burst = await timed(20, () => Promise.all(Array.from({ length: 8 }, () => run(version))));
  runtime.dispose();
  return { cold, warm, coldVersion, burst };
}

const ms = (value: number) => `${value.toFixed(3)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

const isolatedVm = await measureIsolatedVm();
const quickJs = await measureQuickJs();
const latchkey = await measureLatchkeyRuntime();

console.log(`Actions runtime engines (Node ${process.version}; medians; warm = ${WARM_RUNS} executions, cold = ${COLD_RUNS})`);
console.table({
  'cold: new isolate + compile + first run': { 'isolated-vm': ms(isolatedVm.cold), 'quickjs-emscripten': ms(quickJs.cold) },
  'warm execution (loaded context)': { 'isolated-vm': ms(isolatedVm.warm), 'quickjs-emscripten': ms(quickJs.warm) },
  'fresh context per execution': { 'isolated-vm': ms(isolatedVm.freshContext), 'quickjs-emscripten': '-' },
  'memory per isolate (RSS growth)': { 'isolated-vm': mb(isolatedVm.memory), 'quickjs-emscripten': mb(quickJs.memory) },
  'engine heap of one loaded isolate (its own figure)': { 'isolated-vm': mb(isolatedVm.heapBytes), 'quickjs-emscripten': mb(quickJs.heapBytes) },
  [`host event-loop worst delay during a ${LOOP_MS} ms loop`]: { 'isolated-vm': ms(isolatedVm.hostDelay), 'quickjs-emscripten': ms(quickJs.hostDelay) },
  'one-time engine load': { 'isolated-vm': '-', 'quickjs-emscripten': ms(quickJs.moduleLoad) },
});
console.log('ratios quickjs-emscripten / isolated-vm:');
console.log(`  cold ${(quickJs.cold / isolatedVm.cold).toFixed(2)}, warm ${(quickJs.warm / isolatedVm.warm).toFixed(2)}, memory ${(quickJs.memory / isolatedVm.memory).toFixed(2)}`);
console.log(`Latchkey runtime (isolated-vm): first execution ${ms(latchkey.cold)}, warm median ${ms(latchkey.warm)}`);
console.log(`  a new version's first execution (median of ${COLD_RUNS}) ${ms(latchkey.coldVersion)}, a burst of 8 at once (median of 20) ${ms(latchkey.burst)}`);
