/**
 * The web globals of the Actions sandbox (sandbox-web-globals.ts) on the real engine: URL, URLSearchParams,
 * TextEncoder / TextDecoder, atob / btoa, Buffer, crypto and timers, each compared with what Node (the platform's
 * runtime) answers for the same input, and their hostile uses: timers after the execution ended or beyond their
 * bound, huge buffers against the memory limit, escapes through the new globals.
 */
import { describe, expect, it } from 'vitest';
import type { ActionsRuntime } from '../src/services/actions/runtime.js';
import { claimsOf, runtimeFactory, version } from './support/actions-runtime.js';

const runtime = runtimeFactory();
const shared = runtime();

/** Runs `body` (an async function body whose value is JSON) as a post-login handler; answers its value. */
async function evaluate(body: string, event: object = {}, actions: ActionsRuntime = shared): Promise<unknown> {
  const code = `exports.onExecutePostLogin = async (event, api) => { const value = await (async () => { ${body} })(); api.idToken.setCustomClaim('value', value === undefined ? null : value); };`;
  const result = await actions.execute(version('globals', code), 'onExecutePostLogin', event);
  return claimsOf(result).value;
}

describe('URL and URLSearchParams', () => {
  const URL_PARTS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'] as const;
  const partsOf = (url: URL) => URL_PARTS.map((part) => url[part]);

  it('parses as Node does: bases, IDNA hosts, IPv6, percent-encoding, default ports, invalid input', async () => {
    const cases: [string, string?][] = [
      ['https://user:pa%20ss@Example.COM:443/a/./b/../c?x=1&y=%zz#frag'],
      ['../d?q#h', 'https://example.com/a/b/c'],
      ['https://bücher.example/straße?ü=ö'],
      ['http://[::1]:8080/path'],
      ['HTTP://EXAMPLE.com:80/ spaces /'],
      ['mailto:ada@example.com'],
      ['file:///etc/passwd'],
      ['https://example.com/continue?state=abc&session_token=a.b.c'],
    ];
    const answered = (await evaluate(`return event.cases.map(([input, base]) => { const url = base === undefined ? new URL(input) : new URL(input, base); return ${JSON.stringify(URL_PARTS)}.map((part) => url[part]); });`, { cases })) as string[][];
    expect(answered).toEqual(cases.map(([input, base]) => partsOf(new URL(input, base))));

    const invalid = await evaluate(`
      const attempt = (fn) => { try { fn(); return 'ok'; } catch (error) { return error.name + ': ' + error.message; } };
      return [attempt(() => new URL('not a url')), attempt(() => new URL('/relative')), URL.canParse('/x', 'https://a.example'), URL.canParse('nope')];`);
    expect(invalid).toEqual(['TypeError: Invalid URL', 'TypeError: Invalid URL', true, false]);
  });

  it('keeps a URL and its searchParams in step, and its setters follow Node', async () => {
    const value = await evaluate(`
      const url = new URL('https://example.com/path?a=1&b=2');
      url.searchParams.append('redirect_uri', 'https://app.example/cb?x=1 2');
      url.searchParams.delete('a');
      const afterParams = url.href;
      url.search = '?c=3&c=4';
      const fromSearch = url.searchParams.getAll('c');
      url.pathname = '/new path';
      url.hash = 'section 1';
      url.port = '8443';
      url.hostname = 'login.example.com';
      let hrefError = null;
      try { url.href = 'no scheme'; } catch (error) { hrefError = error.name; }
      return { afterParams, fromSearch, href: url.href, json: JSON.stringify({ url }), text: String(url), hrefError };`);
    const url = new URL('https://example.com/path?a=1&b=2');
    url.searchParams.append('redirect_uri', 'https://app.example/cb?x=1 2');
    url.searchParams.delete('a');
    const afterParams = url.href;
    url.search = '?c=3&c=4';
    url.pathname = '/new path';
    url.hash = 'section 1';
    url.port = '8443';
    url.hostname = 'login.example.com';
    expect(value).toEqual({ afterParams, fromSearch: ['3', '4'], href: url.href, json: JSON.stringify({ url }), text: url.href, hrefError: 'TypeError' });
  });

  it('reads and writes application/x-www-form-urlencoded as Node does', async () => {
    const inputs = ['?a=1&b=2&a=3', 'q=caf%C3%A9+au+lait&empty=&flag&=novalue&bad=%zz&plus=%2B', 'x=%F0%9F%98%80&y=%E2%82', ''];
    const answered = await evaluate(`
      return event.inputs.map((input) => { const params = new URLSearchParams(input); return [params.toString(), [...params], params.size]; })
        .concat([[new URLSearchParams({ b: 'x y', a: "!'()~*" }).toString()], [new URLSearchParams([['k', 'v'], ['k', 'w']]).getAll('k')]])
        .concat([(() => { const p = new URLSearchParams('z=1&a=2&z=0&b=3'); p.sort(); p.set('z', 'last'); return [p.toString(), p.has('a'), p.has('a', '9'), p.get('missing')]; })()]);`, { inputs });
    const expected = inputs.map((input) => {
      const params = new URLSearchParams(input);
      return [params.toString(), [...params], params.size];
    });
    const sorted = new URLSearchParams('z=1&a=2&z=0&b=3');
    sorted.sort();
    sorted.set('z', 'last');
    expect(answered).toEqual([
      ...expected,
      [new URLSearchParams({ b: 'x y', a: "!'()~*" }).toString()],
      [['v', 'w']],
      [sorted.toString(), true, false, null],
    ]);
  });
});

describe('TextEncoder, TextDecoder, atob and btoa', () => {
  it('encodes and decodes UTF-8 as Node does, invalid sequences included', async () => {
    const text = 'plain é € 😀 \ud800 end';
    const invalid = [[0xff], [0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xef, 0xbb, 0xbf, 0x41], [0xf4, 0x90, 0x80, 0x80]];
    const answered = await evaluate(`
      const encoded = new TextEncoder().encode(event.text);
      const decoder = new TextDecoder();
      let fatal = null;
      try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])); } catch (error) { fatal = error.name; }
      let label = null;
      try { new TextDecoder('latin1'); } catch (error) { label = error.name; }
      return { encoded: [...encoded], back: decoder.decode(encoded), invalid: event.invalid.map((bytes) => decoder.decode(new Uint8Array(bytes))), fatal, label,
        into: new TextEncoder().encodeInto('é€', new Uint8Array(4)) };`, { text, invalid });
    expect(answered).toEqual({
      encoded: [...new TextEncoder().encode(text)],
      back: new TextDecoder().decode(new TextEncoder().encode(text)),
      invalid: invalid.map((bytes) => new TextDecoder().decode(new Uint8Array(bytes))),
      fatal: 'TypeError',
      label: 'RangeError',
      into: new TextEncoder().encodeInto('é€', new Uint8Array(4)),
    });
  });

  it('has strict atob and btoa over Latin-1, as Node does', async () => {
    const answered = await evaluate(`
      const attempt = (fn) => { try { return fn(); } catch (error) { return error.name; } };
      return [btoa('hello'), btoa('é\\u00ff'), atob('aGVsbG8='), atob(' aGVs bG8 '), atob('aGVsbG8'), attempt(() => btoa('€')), attempt(() => atob('a')), attempt(() => atob('a$bc'))];`);
    const attempt = (fn: () => string) => {
      try {
        return fn();
      } catch {
        return 'InvalidCharacterError';
      }
    };
    expect(answered).toEqual([btoa('hello'), btoa('é\u00ff'), atob('aGVsbG8='), atob(' aGVs bG8 '), atob('aGVsbG8'), attempt(() => btoa('€')), attempt(() => atob('a')), attempt(() => atob('a$bc'))]);
  });
});

describe('Buffer', () => {
  it('converts between strings and bytes in the encodings the platform\'s examples use, as Node does', async () => {
    const samples = ['hello', 'héllo wörld €', '😀', ''];
    const encodings = ['utf8', 'hex', 'base64', 'base64url', 'latin1', 'ascii'] as const;
    const answered = await evaluate(`
      const encodings = ${JSON.stringify(encodings)};
      return event.samples.map((sample) => encodings.map((encoding) => {
        const bytes = Buffer.from(sample, 'utf8');
        return [bytes.toString(encoding), [...Buffer.from(bytes.toString(encoding), encoding)], Buffer.byteLength(sample, 'utf8')];
      }));`, { samples });
    expect(answered).toEqual(
      samples.map((sample) =>
        encodings.map((encoding) => {
          const bytes = Buffer.from(sample, 'utf8');
          return [bytes.toString(encoding), [...Buffer.from(bytes.toString(encoding), encoding)], Buffer.byteLength(sample, 'utf8')];
        }),
      ),
    );

    const lenient = ['aGVsbG8', 'aGVs bG8=', 'aGVsbG8-_w', 'a', 'zz==garbage', '0xzz'];
    const decoded = await evaluate(`return event.lenient.map((text) => [[...Buffer.from(text, 'base64')], [...Buffer.from(text, 'hex')]]);`, { lenient });
    expect(decoded).toEqual(lenient.map((text) => [[...Buffer.from(text, 'base64')], [...Buffer.from(text, 'hex')]]));
  });

  it('decodes a JWT\'s payload the usual way, and has the helpers around it', async () => {
    const payload = { sub: 'auth0|123', name: 'Zoë' };
    const token = `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
    const answered = await evaluate(`
      const claims = JSON.parse(Buffer.from(event.token.split('.')[1], 'base64').toString());
      const joined = Buffer.concat([Buffer.from('ab'), Buffer.from([99, 100]), new Uint8Array([101])]);
      return { claims, joined: joined.toString(), isBuffer: [Buffer.isBuffer(joined), Buffer.isBuffer(new Uint8Array(1))],
        json: JSON.stringify(Buffer.from('hi')), equals: Buffer.from('x').equals(Buffer.from('x')), alloc: Buffer.alloc(5, 'ab').toString(),
        slice: Buffer.from('hello').slice(1, 3).toString(), unknown: (() => { try { Buffer.from('x', 'utf99'); } catch (error) { return error.message; } })() };`, { token });
    expect(answered).toEqual({
      claims: payload,
      joined: 'abcde',
      isBuffer: [true, false],
      json: JSON.stringify(Buffer.from('hi')),
      equals: true,
      alloc: Buffer.alloc(5, 'ab').toString(),
      slice: 'el',
      unknown: 'Unknown encoding: utf99',
    });
  });

  it('meets the memory limit with huge buffers: the allocation past it is refused, the host is untouched', async () => {
    const actions = runtime({ memoryLimitMb: 32, timeoutMs: 10_000 });
    const refused = await evaluate(`try { Buffer.alloc(1024 * 1024 * 1024); return 'allocated'; } catch (error) { return error.name; }`, {}, actions);
    expect(refused).toBe('RangeError');
    const heapBefore = process.memoryUsage().heapUsed;
    const hoard = await actions.execute(
      version('buffer-hoard', `exports.onExecutePostLogin = async () => { const kept = []; for (;;) kept.push(Buffer.alloc(4 * 1024 * 1024, 1)); };`),
      'onExecutePostLogin',
      {},
    );
    // The isolate's allocator refuses the buffer that would go past the limit: a RangeError, as Node's would be.
    expect(hoard).toMatchObject({ ok: false, error: { kind: 'thrown', name: 'RangeError', message: 'Array buffer allocation failed' } });
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(32 * 1024 * 1024);
    expect(await evaluate(`return Buffer.from('still here').toString('base64');`, {}, actions)).toBe(Buffer.from('still here').toString('base64'));
  });
});

describe('crypto', () => {
  it('gives version 4 UUIDs and random values from the host, with the standard\'s refusals', async () => {
    const answered = (await evaluate(`
      const attempt = (fn) => { try { fn(); return 'ok'; } catch (error) { return error.name; } };
      const ids = Array.from({ length: 50 }, () => crypto.randomUUID());
      const words = crypto.getRandomValues(new Uint32Array(8));
      return { ids, distinct: new Set(ids).size, words: [...words], same: crypto.getRandomValues(new Uint8Array(4)) instanceof Uint8Array,
        float: attempt(() => crypto.getRandomValues(new Float64Array(2))), quota: attempt(() => crypto.getRandomValues(new Uint8Array(65537))) };`)) as {
      ids: string[];
      distinct: number;
      words: number[];
      same: boolean;
      float: string;
      quota: string;
    };
    for (const id of answered.ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(answered.distinct).toBe(50);
    expect(new Set(answered.words).size).toBeGreaterThan(4);
    expect([answered.same, answered.float, answered.quota]).toEqual([true, 'TypeMismatchError', 'QuotaExceededError']);
  });
});

describe('timers', () => {
  it('fire in order with their arguments within the execution, and clearTimeout cancels', async () => {
    const answered = await evaluate(`
      const seen = [];
      await new Promise((resolve) => {
        setTimeout((a, b) => seen.push('late:' + a + b), 30, 'x', 'y');
        setTimeout(() => seen.push('early'), 1);
        const cancelled = setTimeout(() => seen.push('cancelled'), 10);
        clearTimeout(cancelled);
        const byNumber = setTimeout(() => seen.push('cancelled by number'), 10);
        clearTimeout(Number(byNumber));
        setTimeout(resolve, 60);
      });
      const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
      const started = Date.now();
      await sleep(25);
      return { seen, slept: Date.now() - started >= 20, chainable: typeof setTimeout(() => {}, 1).unref().ref().hasRef() };`);
    expect(answered).toEqual({ seen: ['early', 'late:xy'], slept: true, chainable: 'boolean' });
  });

  it('never outlive their execution: a timer left pending does not fire after it, nor in the next one', async () => {
    const actions = runtime({ maxIdleIsolatesPerVersion: 1 });
    const v = version('timer-left-behind', `
      let fired = [];
      exports.onExecutePostLogin = async (event, api) => {
        api.idToken.setCustomClaim('firedBefore', fired);
        if (event.leave) setTimeout(() => { fired.push(event.leave); console.log('fired after the end'); }, 40);
        if (event.wait) await new Promise((resolve) => setTimeout(resolve, event.wait));
      };`);
    const first = await actions.execute(v, 'onExecutePostLogin', { leave: 'first' });
    expect(first.ok).toBe(true);
    // The next execution in the same isolate starts after the timer was due, and waits past it too.
    await new Promise((resolve) => setTimeout(resolve, 80));
    const second = await actions.execute(v, 'onExecutePostLogin', { wait: 80 });
    expect(claimsOf(second)).toEqual({ firedBefore: [] });
    const third = await actions.execute(v, 'onExecutePostLogin', {});
    expect(claimsOf(third)).toEqual({ firedBefore: [] });
    expect([...first.logs.lines, ...second.logs.lines, ...third.logs.lines]).toEqual([]);
  });

  it('are bounded in number per execution, and one due after the time limit never fires', async () => {
    const actions = runtime({ maxTimersPerExecution: 5, timeoutMs: 300 });
    const bounded = await evaluate(`
      const made = [];
      try { for (let i = 0; i < 10; i += 1) made.push(setTimeout(() => {}, 1000)); } catch (error) { return [made.length, error.name, error.message]; }
      return [made.length];`, {}, actions);
    expect(bounded).toEqual([5, 'RangeError', 'setTimeout: too many timers in one execution (the limit is 5)']);
    const beyond = await actions.execute(
      version('timer-beyond-limit', `exports.onExecutePostLogin = () => new Promise((resolve) => setTimeout(resolve, 10_000));`),
      'onExecutePostLogin',
      {},
    );
    expect(beyond).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    expect(beyond.durationMs).toBeLessThan(1_500);
  });

  it('fail the execution with an uncaught error of their callback, as an uncaught exception would in Node', async () => {
    const result = await shared.execute(
      version('timer-throws', `exports.onExecutePostLogin = async () => { setTimeout(() => { throw new TypeError('in a timer'); }, 1); await new Promise((resolve) => setTimeout(resolve, 50)); };`),
      'onExecutePostLogin',
      {},
    );
    expect(result).toMatchObject({ ok: false, error: { kind: 'thrown', name: 'TypeError', message: 'in a timer' } });
  });
});

describe('containment of the new globals', () => {
  it('bounds the calls into the host one execution makes (URL, randomness, token HMACs), afresh for each execution', async () => {
    const actions = runtime({ maxHostCallsPerExecution: 50 });
    const body = `
      let parsed = 0;
      try { for (;;) { new URL('https://a.example/' + parsed); parsed += 1; } } catch (error) { return [parsed, error.name, error.message]; }`;
    const limited = [await evaluate(body, {}, actions), await evaluate(body, {}, actions)];
    expect(limited).toEqual(Array(2).fill([50, 'RangeError', 'Too many calls of URL, crypto and api.redirect in one execution (the limit is 50)']));
    // Small random requests come from a pool: a thousand UUIDs cost a few calls.
    expect(await evaluate(`return new Set(Array.from({ length: 1000 }, () => crypto.randomUUID())).size;`, {}, actions)).toBe(1000);
  });

  it('gives no way to the host through them', async () => {
    const answered = await evaluate(`
      const attempt = (fn) => { try { const value = fn(); return typeof value; } catch (error) { return error.name + ': ' + error.message; } };
      return [
        attempt(() => URL.constructor('return process')()),
        attempt(() => new URL('https://a.example').searchParams.constructor.constructor('return process')()),
        attempt(() => crypto.getRandomValues.constructor('return process')()),
        attempt(() => setTimeout.constructor('return process')()),
        attempt(() => Buffer.from('x').constructor.constructor('return process')()),
        Object.getPrototypeOf(crypto.getRandomValues(new Uint8Array(1))) === Uint8Array.prototype,
      ];`);
    const refused = 'ReferenceError: process is not defined';
    expect(answered).toEqual([refused, refused, refused, refused, refused, true]);
  });
});
