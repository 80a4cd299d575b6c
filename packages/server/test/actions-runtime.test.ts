/**
 * The Actions runtime (issue 28, §3) on the real engine (isolated-vm): recorded api commands, captured console,
 * the time and memory limits, containment of hostile code (an execution that runs away costs only its own
 * isolate), and the fetch bridge's egress policy and timeout. The api's answering methods and the web globals have
 * their own files (actions-answering-api.test.ts, actions-web-globals.test.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseActionsEgress } from '../src/config/actions-egress.js';
import { classifyAddress } from '../src/services/actions/egress.js';
import { claimsOf, commandsOf, runtimeFactory, version } from './support/actions-runtime.js';

const runtime = runtimeFactory();

describe('executions', () => {
  it('records the api calls of a handler, in order, for the caller to apply', async () => {
    const actions = runtime();
    const code = `
      exports.onExecutePostLogin = async (event, api) => {
        const namespace = 'https://example.com';
        api.idToken.setCustomClaim(namespace + '/roles', event.authorization.roles);
        api.accessToken.setCustomClaim(namespace + '/email', event.user.email).accessToken.addScope('read:reports');
        const claim = { plan: 'gold' };
        api.idToken.setCustomClaim(namespace + '/plan', claim);
        claim.plan = 'changed after the call';
        if (event.user.email.endsWith('@blocked.example')) api.access.deny('Your domain is not allowed');
      };`;
    const event = { user: { email: 'eve@blocked.example' }, authorization: { roles: ['admin', 'editor'] } };
    const result = await actions.execute(version('claims', code), 'onExecutePostLogin', event);
    expect(commandsOf(result)).toEqual([
      { op: 'idToken.setCustomClaim', args: ['https://example.com/roles', ['admin', 'editor']] },
      { op: 'accessToken.setCustomClaim', args: ['https://example.com/email', 'eve@blocked.example'] },
      { op: 'accessToken.addScope', args: ['read:reports'] },
      { op: 'idToken.setCustomClaim', args: ['https://example.com/plan', { plan: 'gold' }] },
      { op: 'access.deny', args: ['Your domain is not allowed'] },
    ]);
  });

  it('gives each trigger its own api, with module.exports and the other handler names', async () => {
    const actions = runtime();
    const code = `
      module.exports = {
        onExecuteCredentialsExchange: async (event, api) => {
          api.accessToken.setCustomClaim('https://example.com/client', event.client.client_id);
          return typeof api.idToken;
        },
        onExecutePostUserRegistration: async (event, api) => { console.log('registered', event.user.email, Object.keys(api).join()); },
      };`;
    const v = version('exports', code);
    const exchange = await actions.execute(v, 'onExecuteCredentialsExchange', { client: { client_id: 'c1' } });
    expect(commandsOf(exchange)).toEqual([{ op: 'accessToken.setCustomClaim', args: ['https://example.com/client', 'c1'] }]);
    const registration = await actions.execute(v, 'onExecutePostUserRegistration', { user: { email: 'new@example.com' } });
    expect(commandsOf(registration)).toEqual([]);
    expect(registration.logs.lines).toEqual([{ level: 'log', message: 'registered new@example.com cache' }]);
    const missing = await actions.execute(v, 'onExecutePostLogin', {});
    expect(missing).toMatchObject({ ok: false, error: { kind: 'missing_handler', message: 'The action does not export onExecutePostLogin' } });
  });

  it('captures console output per execution, bounded', async () => {
    const actions = runtime({ maxLogChars: 200 });
    const code = `
      exports.onExecutePostLogin = async (event) => {
        console.log('user', event.user.email, { logins: 3 });
        console.warn('warned');
        console.error(new TypeError('shown with its stack'));
        if (event.flood) for (let i = 0; i < 10000; i++) console.info('line ' + i + ' '.repeat(50));
      };`;
    const v = version('console', code);
    const quiet = await actions.execute(v, 'onExecutePostLogin', { user: { email: 'ada@example.com' } });
    expect(quiet.ok).toBe(true);
    expect(quiet.logs.truncated).toBe(false);
    expect(quiet.logs.lines.slice(0, 2)).toEqual([
      { level: 'log', message: 'user ada@example.com {"logins":3}' },
      { level: 'warn', message: 'warned' },
    ]);
    expect(quiet.logs.lines[2]).toMatchObject({ level: 'error', message: expect.stringMatching(/^TypeError: shown with its stack\n\s+at /) });

    const flood = await actions.execute(v, 'onExecutePostLogin', { user: { email: 'ada@example.com' }, flood: true });
    expect(flood.ok).toBe(true);
    expect(flood.logs.truncated).toBe(true);
    expect(flood.logs.lines.reduce((sum, line) => sum + line.message.length, 0)).toBe(200);
    // The next execution of the same context starts with its own, empty logs.
    const again = await actions.execute(v, 'onExecutePostLogin', { user: { email: 'bob@example.com' } });
    expect(again.logs.lines[0]?.message).toBe('user bob@example.com {"logins":3}');
  });

  it('bounds console output made of empty lines too', async () => {
    const actions = runtime({ maxLogChars: 100 });
    const result = await actions.execute(version('empty-lines', `exports.onExecutePostLogin = async () => { for (let i = 0; i < 100000; i += 1) console.log(); };`), 'onExecutePostLogin', {});
    expect(result.ok).toBe(true);
    expect(result.logs).toEqual({ lines: Array(100).fill({ level: 'log', message: '' }), truncated: true });
  });

  it('reports a thrown error, a rejected promise and a syntax error as such', async () => {
    const actions = runtime();
    const thrown = await actions.execute(version('throws', `exports.onExecutePostLogin = () => { throw new RangeError('out of range'); };`), 'onExecutePostLogin', {});
    expect(thrown).toMatchObject({ ok: false, error: { kind: 'thrown', name: 'RangeError', message: 'out of range' } });
    expect(thrown.ok === false && thrown.error.stack).toMatch(/action\.js:1:/);
    const rejected = await actions.execute(version('rejects', `exports.onExecutePostLogin = async () => Promise.reject('plain string');`), 'onExecutePostLogin', {});
    expect(rejected).toMatchObject({ ok: false, error: { kind: 'thrown', message: 'plain string' } });
    const topLevel = await actions.execute(version('top-level', `throw new Error('at load'); exports.onExecutePostLogin = async () => {};`), 'onExecutePostLogin', {});
    expect(topLevel).toMatchObject({ ok: false, error: { kind: 'thrown', message: 'at load' } });
    const syntax = await actions.execute(version('syntax', `exports.onExecutePostLogin = async (event, api) => {`), 'onExecutePostLogin', {});
    expect(syntax).toMatchObject({ ok: false, error: { kind: 'compile_error', message: expect.stringContaining('SyntaxError') } });
  });
});

describe('limits', () => {
  it('stops an infinite loop at the time limit without stalling the host; later executions still work', async () => {
    const actions = runtime({ timeoutMs: 400 });
    const v = version('loop', `exports.onExecutePostLogin = async (event, api) => { if (event.loop) for (;;) {} api.idToken.setCustomClaim('ok', true); };`);
    let hostTicks = 0;
    const ticker = setInterval(() => (hostTicks += 1), 20);
    const looping = await actions.execute(v, 'onExecutePostLogin', { loop: true });
    clearInterval(ticker);
    expect(looping).toMatchObject({ ok: false, error: { kind: 'timeout', message: 'The action ran longer than its limit of 400 ms' } });
    expect(looping.durationMs).toBeLessThan(1_500);
    // The loop ran on the isolate's thread: the host's timers kept firing meanwhile.
    expect(hostTicks).toBeGreaterThanOrEqual(3);

    expect(claimsOf(await actions.execute(v, 'onExecutePostLogin', {}))).toEqual({ ok: true });
    const other = version('after-loop', `exports.onExecutePostLogin = async (event, api) => { api.idToken.setCustomClaim('other', 1); };`);
    expect(claimsOf(await actions.execute(other, 'onExecutePostLogin', {}))).toEqual({ other: 1 });
  });

  it('stops a handler that waits forever at the time limit, and a loop at the top level of the module', async () => {
    const actions = runtime({ timeoutMs: 300 });
    const waiting = await actions.execute(version('waits', `exports.onExecutePostLogin = () => new Promise(() => {});`), 'onExecutePostLogin', {});
    expect(waiting).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    const loading = await actions.execute(version('loops-at-load', `for (;;) {}`), 'onExecutePostLogin', {});
    expect(loading).toMatchObject({ ok: false, error: { kind: 'timeout' } });
  });

  it('stops unbounded allocation at the memory limit; the host stays healthy and the version runs again', async () => {
    const actions = runtime({ memoryLimitMb: 32, timeoutMs: 10_000 });
    const v = version('allocates', `
      exports.onExecutePostLogin = async (event, api) => {
        const hoard = [];
        if (event.allocate) for (;;) hoard.push(new Array(100000).fill(Math.random()));
        api.idToken.setCustomClaim('ok', true);
      };`);
    const heapBefore = process.memoryUsage().heapUsed;
    const result = await actions.execute(v, 'onExecutePostLogin', { allocate: true });
    expect(result).toMatchObject({ ok: false, error: { kind: 'memory_limit', message: 'The action went over its memory limit of 32 MB' } });
    // The isolate's heap is not ours: our own heap did not take the allocation.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(32 * 1024 * 1024);
    expect(claimsOf(await actions.execute(v, 'onExecutePostLogin', {}))).toEqual({ ok: true });
  });
});

describe('containment', () => {
  it('lets concurrent executions of a version succeed while one of them loops forever, in its handler or in a timer', async () => {
    const actions = runtime({ timeoutMs: 1_500 });
    const v = version('loops-beside-others', `
      exports.onExecutePostLogin = async (event, api) => {
        if (event.loop === 'handler') for (;;) {}
        if (event.loop === 'timer') { await new Promise((resolve) => setTimeout(resolve, 5)); for (;;) {} }
        await new Promise((resolve) => setTimeout(resolve, 20));
        api.idToken.setCustomClaim('n', event.n);
      };`);
    const started = performance.now();
    const loopers = [actions.execute(v, 'onExecutePostLogin', { loop: 'handler' }), actions.execute(v, 'onExecutePostLogin', { loop: 'timer' })];
    const others = Array.from({ length: 6 }, (_, n) => actions.execute(v, 'onExecutePostLogin', { n }));
    const results = await Promise.all(others);
    // Done long before the loopers' limit: they never waited for the looping isolates.
    expect(performance.now() - started).toBeLessThan(1_200);
    expect(results.map((result) => claimsOf(result))).toEqual(Array.from({ length: 6 }, (_, n) => ({ n })));
    for (const looper of await Promise.all(loopers)) expect(looper).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    // And the version still serves.
    expect(claimsOf(await actions.execute(v, 'onExecutePostLogin', { n: 7 }))).toEqual({ n: 7 });
  });

  it('lets concurrent executions of a version succeed while one of them goes over the memory limit', async () => {
    const actions = runtime({ memoryLimitMb: 32, timeoutMs: 10_000 });
    const v = version('allocates-beside-others', `
      exports.onExecutePostLogin = async (event, api) => {
        const hoard = [];
        if (event.allocate) for (;;) hoard.push(new Array(100000).fill(Math.random()));
        await new Promise((resolve) => setTimeout(resolve, 50));
        api.idToken.setCustomClaim('n', event.n);
      };`);
    const others = Array.from({ length: 4 }, (_, n) => actions.execute(v, 'onExecutePostLogin', { n }));
    const hog = await actions.execute(v, 'onExecutePostLogin', { allocate: true });
    expect(hog).toMatchObject({ ok: false, error: { kind: 'memory_limit' } });
    expect((await Promise.all(others)).map((result) => claimsOf(result))).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('keeps the isolates a burst of executions loaded for the next burst, and lets them go once unused', async () => {
    const actions = runtime({ idleIsolateTtlMs: 150 });
    const v = version('bursts', `
      const isolate = crypto.randomUUID();
      exports.onExecutePostLogin = async (event, api) => { await new Promise((resolve) => setTimeout(resolve, 30)); api.idToken.setCustomClaim('isolate', isolate); };`);
    const burst = async () => new Set((await Promise.all(Array.from({ length: 4 }, () => actions.execute(v, 'onExecutePostLogin', {})))).map((result) => claimsOf(result).isolate));
    const first = await burst();
    expect(first.size).toBe(4);
    // Warm: the same four isolates serve the next burst.
    expect(await burst()).toEqual(first);
    // Unused past their time, all but the most recently used one go.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lone = claimsOf(await actions.execute(v, 'onExecutePostLogin', {})).isolate;
    expect(first.has(lone)).toBe(true);
    const later = await burst();
    expect([...later].filter((isolate) => first.has(isolate))).toEqual([lone]);
  });

  it('keeps an execution\'s module state in its loaded isolate between warm executions', async () => {
    const actions = runtime({ maxIdleIsolatesPerVersion: 1 });
    const v = version('warm-state', `let runs = 0; exports.onExecutePostLogin = async (event, api) => { runs += 1; api.idToken.setCustomClaim('runs', runs); };`);
    const seen = [];
    for (let i = 0; i < 3; i += 1) seen.push(claimsOf(await actions.execute(v, 'onExecutePostLogin', {})).runs);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('keeps prototype pollution inside the version: not in the host, not in another version or action', async () => {
    const actions = runtime();
    const polluter = version('pollutes', `
      exports.onExecutePostLogin = async (event, api) => {
        Object.prototype.polluted = 1;
        ({}).__proto__.x = 1;
        Array.prototype.includes = () => true;
        JSON.parse = () => ({ hijacked: true });
        event.__proto__.viaEvent = 1;
        api.__proto__.viaApi = 1;
        api.idToken.setCustomClaim('seen', ({}).polluted);
      };`);
    expect(claimsOf(await actions.execute(polluter, 'onExecutePostLogin', {}))).toEqual({ seen: 1 });

    const host = {} as Record<string, unknown>;
    expect([host.polluted, host.x, host.viaEvent, host.viaApi]).toEqual([undefined, undefined, undefined, undefined]);
    expect(['a'].includes('b')).toBe(false);
    expect(JSON.parse('{"a":1}')).toEqual({ a: 1 });

    const probe = `
      exports.onExecutePostLogin = async (event, api) => {
        const fresh = {};
        api.idToken.setCustomClaim('polluted', typeof fresh.polluted).idToken.setCustomClaim('x', typeof fresh.x)
          .idToken.setCustomClaim('viaEvent', typeof fresh.viaEvent).idToken.setCustomClaim('includes', [1].includes(2))
          .idToken.setCustomClaim('json', JSON.parse('{"a":1}'));
      };`;
    const clean = { polluted: 'undefined', x: 'undefined', viaEvent: 'undefined', includes: false, json: { a: 1 } };
    // The polluting action's next version, and another action.
    expect(claimsOf(await actions.execute({ ...version('pollutes', probe) }, 'onExecutePostLogin', {}))).toEqual(clean);
    expect(claimsOf(await actions.execute(version('bystander', probe), 'onExecutePostLogin', {}))).toEqual(clean);
  });

  it('gives no way to process, the file system or the host: require, globals and constructor escapes', async () => {
    const actions = runtime();
    const code = `
      const attempt = (fn) => { try { const value = fn(); return value === undefined ? 'undefined' : typeof value === 'object' ? Object.keys(value).join(',') : String(value); } catch (error) { return error.name + ': ' + error.message; } };
      exports.onExecutePostLogin = async (event, api) => {
        const claims = {
          process: typeof process,
          globalProcess: typeof globalThis.process,
          requireFs: attempt(() => require('fs')),
          requireChildProcess: attempt(() => require('node:child_process')),
          constructorEscape: attempt(() => globalThis.constructor.constructor('return process')()),
          viaEvent: attempt(() => event.constructor.constructor('return process')()),
          viaApi: attempt(() => api.idToken.setCustomClaim.constructor('return process')()),
          viaConsole: attempt(() => console.log.constructor('return process')()),
          viaFetch: attempt(() => fetch.constructor('return typeof require')()),
          extraGlobals: Object.getOwnPropertyNames(globalThis).filter((name) => !event.builtins.includes(name)).sort().join(','),
        };
        for (const [name, value] of Object.entries(claims)) api.idToken.setCustomClaim(name, value);
      };`;
    // The globals of a bare V8 context of the same engine (node:vm adds nothing of Node's).
    const builtins = runInNewContext('Object.getOwnPropertyNames(globalThis)') as string[];
    const claims = claimsOf(await actions.execute(version('escapes', code), 'onExecutePostLogin', { builtins: [...builtins] }));
    const refusal = "Error: Cannot find module '%s': an action can require only the dependencies it declares";
    expect(claims).toEqual({
      process: 'undefined',
      globalProcess: 'undefined',
      requireFs: refusal.replace('%s', 'fs'),
      requireChildProcess: refusal.replace('%s', 'node:child_process'),
      constructorEscape: 'ReferenceError: process is not defined',
      viaEvent: 'ReferenceError: process is not defined',
      viaApi: 'ReferenceError: process is not defined',
      viaConsole: 'ReferenceError: process is not defined',
      viaFetch: 'undefined',
      // What the runtime adds to the language's built-ins, and nothing else (no process, require, global, setInterval).
      extraGlobals: 'Buffer,Headers,TextDecoder,TextEncoder,URL,URLSearchParams,atob,btoa,clearTimeout,crypto,fetch,setTimeout',
    });
  });
});

describe('fetch', () => {
  let server: Server;
  let origin: string;
  const received: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      received.push(`${request.method} ${request.url}`);
      if (request.url === '/hang') return; // never answers
      if (request.url === '/moved') {
        response.writeHead(302, { location: '/echo' }).end();
        return;
      }
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        response.writeHead(201, { 'content-type': 'application/json', 'x-echo': 'yes' });
        response.end(JSON.stringify({ method: request.method, url: request.url, body, auth: request.headers.authorization ?? null, type: request.headers['content-type'] ?? null }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const fetching = (url: string) => `
    exports.onExecutePostLogin = async (event, api) => {
      const response = await fetch(${JSON.stringify(url)}, { method: 'POST', headers: { authorization: 'Bearer t', 'content-type': 'application/json' }, body: JSON.stringify({ user: event.user.email }) });
      api.idToken.setCustomClaim('status', response.status).idToken.setCustomClaim('ok', response.ok)
        .idToken.setCustomClaim('echo', response.headers.get('X-Echo')).idToken.setCustomClaim('body', await response.json());
    };`;

  it('refuses loopback by default, by address and by name, before any request is made', async () => {
    const actions = runtime();
    const before = received.length;
    const byAddress = await actions.execute(version('fetch-default', fetching(`${origin}/echo`)), 'onExecutePostLogin', { user: { email: 'a@example.com' } });
    expect(byAddress).toMatchObject({
      ok: false,
      error: { kind: 'thrown', name: 'TypeError', message: 'fetch failed: 127.0.0.1 is a loopback address, and LATCHKEY_ACTIONS_EGRESS allows public addresses only' },
    });
    const byName = await actions.execute(version('fetch-by-name', fetching(`${origin.replace('127.0.0.1', 'localhost')}/echo`)), 'onExecutePostLogin', { user: { email: 'a@example.com' } });
    expect(byName).toMatchObject({ ok: false, error: { kind: 'thrown', message: expect.stringMatching(/^fetch failed: localhost: (127\.0\.0\.1|::1) is a loopback address/) } });
    const metadata = await actions.execute(version('fetch-metadata', fetching('http://169.254.169.254/latest/meta-data/')), 'onExecutePostLogin', { user: { email: 'a@example.com' } });
    expect(metadata).toMatchObject({ ok: false, error: { message: expect.stringContaining('169.254.169.254 is not a public address') } });
    expect(received.length).toBe(before);
  });

  it('reaches loopback when the egress setting allows it: method, headers, body, response and redirects', async () => {
    const actions = runtime({ egress: parseActionsEgress('public,loopback') });
    const result = await actions.execute(version('fetch-loopback', fetching(`${origin}/echo`)), 'onExecutePostLogin', { user: { email: 'a@example.com' } });
    expect(claimsOf(result)).toEqual({
      status: 201,
      ok: true,
      echo: 'yes',
      body: { method: 'POST', url: '/echo', body: '{"user":"a@example.com"}', auth: 'Bearer t', type: 'application/json' },
    });
    const form = await actions.execute(
      version('fetch-form', `exports.onExecutePostLogin = async (event, api) => {
        const response = await fetch(new URL('/token', ${JSON.stringify(origin)}), { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'read:users write' }) });
        api.idToken.setCustomClaim('sent', await response.json());
      };`),
      'onExecutePostLogin',
      {},
    );
    expect(claimsOf(form).sent).toMatchObject({ url: '/token', body: 'grant_type=client_credentials&scope=read%3Ausers+write', type: 'application/x-www-form-urlencoded;charset=UTF-8' });
    const redirected = await actions.execute(
      version('fetch-redirect', `exports.onExecutePostLogin = async (event, api) => { const r = await fetch(${JSON.stringify(`${origin}/moved`)}); api.idToken.setCustomClaim('r', [r.redirected, r.url.endsWith('/echo'), (await r.json()).method]); };`),
      'onExecutePostLogin',
      {},
    );
    expect(claimsOf(redirected)).toEqual({ r: [true, true, 'GET'] });
  });

  it('bounds the requests of one execution', async () => {
    const actions = runtime({ egress: { allowLoopback: true }, maxFetchesPerExecution: 2 });
    const before = received.length;
    const code = `
      exports.onExecutePostLogin = async (event, api) => {
        const outcomes = await Promise.allSettled([1, 2, 3].map((n) => fetch(${JSON.stringify(`${origin}/echo?n=`)} + n)));
        api.idToken.setCustomClaim('outcomes', outcomes.map((outcome) => outcome.status === 'fulfilled' ? outcome.value.status : outcome.reason.message));
      };`;
    const result = await actions.execute(version('fetch-flood', code), 'onExecutePostLogin', {});
    expect(claimsOf(result)).toEqual({ outcomes: [201, 201, 'fetch failed: too many requests in one execution'] });
    expect(received.length - before).toBe(2);
  });

  it('gives up on a request after the fetch timeout, and the handler can catch it', async () => {
    const actions = runtime({ egress: { allowLoopback: true }, fetchTimeoutMs: 300, timeoutMs: 5_000 });
    const code = `
      exports.onExecutePostLogin = async (event, api) => {
        try { await fetch(${JSON.stringify(`${origin}/hang`)}); } catch (error) { api.access.deny(error.message); }
      };`;
    const started = performance.now();
    const result = await actions.execute(version('fetch-timeout', code), 'onExecutePostLogin', {});
    expect(commandsOf(result)).toEqual([{ op: 'access.deny', args: ['fetch failed: no response within 300 ms'] }]);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('never waits on a fetch past the execution time limit', async () => {
    const actions = runtime({ egress: { allowLoopback: true }, fetchTimeoutMs: 10_000, timeoutMs: 400 });
    const result = await actions.execute(version('fetch-past-limit', `exports.onExecutePostLogin = async () => { await fetch(${JSON.stringify(`${origin}/hang`)}); };`), 'onExecutePostLogin', {});
    expect(result).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    expect(result.durationMs).toBeLessThan(1_500);
  });
});

describe('egress policy', () => {
  it('classifies addresses: public, loopback, and the special-purpose ranges', () => {
    for (const address of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(classifyAddress(address), address).toBe('public');
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1']) expect(classifyAddress(address), address).toBe('loopback');
    for (const address of [
      '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255',
      '::', 'fe80::1', 'fd00::1', 'ff02::1', '::ffff:10.0.0.1', '64:ff9b::a00:1', '2001:db8::1', '2002:a00:1::', 'not an address',
    ]) {
      expect(classifyAddress(address), address).toBe('restricted');
    }
  });

  it('reads LATCHKEY_ACTIONS_EGRESS', () => {
    expect(parseActionsEgress('public')).toEqual({ allowLoopback: false });
    expect(parseActionsEgress('public, loopback')).toEqual({ allowLoopback: true });
    expect(() => parseActionsEgress('loopback')).toThrow(/expected "public" or "public,loopback"/);
    expect(() => parseActionsEgress('public,private')).toThrow(/expected/);
  });
});
