import { ANSWERING_API_PRELUDE } from './sandbox-answering-api.js';
import { WEB_GLOBALS_PRELUDE } from './sandbox-web-globals.js';

/**
 * The JavaScript that runs first in every sandbox context, before the action's module: it installs `console`,
 * `fetch`, `Headers` and the web globals (sandbox-web-globals.ts), prepares the CommonJS `module` and the refusing
 * `require`, and returns the three functions the host calls: `run(handlerName, eventJson, recording, answering,
 * host)`, `deliver(fetchId, outcome)` and `fireTimer(timerId)`.
 *
 * It is a script whose value is a function, compiled once per isolate (with V8's code cache shared by all
 * isolates: it is the same text for every version) and called once per context with:
 *   hostLog(level, line) -> boolean     sync callback: appends to the execution's logs; false once they are full
 *   hostFetch(id, request)              sync callback: starts a request; its outcome comes back via `deliver`
 *   hostHmac(secret, text) -> string    sync callback: HMAC-SHA256 of text under secret, base64url
 *   hostRandom(count) -> Uint8Array     sync callback: bytes from the host's CSPRNG
 *   hostUrl(op, a, b) -> string[]|null  sync callback: parses (op 'parse': a the input, b the base) or changes one
 *                                       component (op the component, a the href, b the value) with Node's URL
 *   hostTimer(id, ms)                   sync callback: schedules timer `id` (fired via `fireTimer`), or clears it (-1)
 *   settingsJson                        the limits: console line length, timers, host calls, cache, token size
 *
 * Nothing the host owns is reachable from here: the callbacks copy their arguments and results, the event arrives
 * as a JSON string, and the `api` is built here from method names: its recording methods only record calls, its
 * answering methods (sandbox-answering-api.ts) compute from the host state copied in with the execution. The
 * intrinsics used after tenant code has run (JSON, Map, Promise, Error, Uint8Array) are captured first, so a tenant
 * that replaces them spoils only its own results, which the host parses and checks anyway.
 *
 * A string, not a function serialized with toString(): the test and bench loaders transpile functions and may
 * add helpers that do not exist inside the isolate.
 */
export const SANDBOX_PRELUDE = String.raw`(function latchkeyActionsRuntime(hostLog, hostFetch, hostHmac, hostRandom, hostUrl, hostTimer, settingsJson) {
'use strict';
const { parse, stringify } = JSON;
const settings = parse(settingsJson);
const maxLineChars = settings.maxLineChars;
const ErrorClass = Error;
const TypeErrorClass = TypeError;
const MapClass = Map;
const PromiseClass = Promise;
const isArray = Array.isArray;
const objectKeys = Object.keys;
const promiseRace = Promise.race.bind(Promise);
const dateNow = Date.now;

function formatValue(value) {
  if (typeof value === 'string') return value;
  try {
    if (value instanceof ErrorClass) return typeof value.stack === 'string' ? value.stack : String(value);
    if (typeof value === 'object' && value !== null) {
      const json = stringify(value);
      if (json !== undefined) return json;
    }
    return String(value);
  } catch (_) {
    return '[a value that cannot be printed]';
  }
}

function describeError(error) {
  try {
    if (error instanceof ErrorClass) {
      return { name: String(error.name), message: String(error.message), stack: typeof error.stack === 'string' ? error.stack : null };
    }
    return { name: 'Error', message: formatValue(error), stack: null };
  } catch (_) {
    return { name: 'Error', message: 'the action threw a value that cannot be described', stack: null };
  }
}

// ---- console: each line goes to the host as it is written, so it survives a timeout ----
let logging = true;
function write(level, values) {
  if (!logging) return;
  let line = '';
  for (let i = 0; i < values.length; i += 1) line += (i === 0 ? '' : ' ') + formatValue(values[i]);
  if (line.length > maxLineChars) line = line.slice(0, maxLineChars);
  logging = hostLog(level, line) === true;
}
const sandboxConsole = {};
for (const level of ['log', 'info', 'warn', 'error', 'debug']) sandboxConsole[level] = (...values) => write(level, values);
globalThis.console = sandboxConsole;

// ---- fetch: the host performs the request (egress policy, timeout, size bound) ----
function headerPairs(init) {
  if (init === undefined || init === null) return [];
  if (init instanceof Headers) return [...init.entries()];
  if (isArray(init)) return init.map((pair) => [String(pair[0]), String(pair[1])]);
  if (typeof init === 'object') return objectKeys(init).map((name) => [name, String(init[name])]);
  throw new TypeErrorClass('fetch: headers must be an object, an array of [name, value] pairs or a Headers');
}

class Headers {
  #map = new MapClass();
  constructor(init) {
    for (const [name, value] of headerPairs(init)) this.append(name, value);
  }
  append(name, value) {
    const key = String(name).toLowerCase();
    const prior = this.#map.get(key);
    this.#map.set(key, prior === undefined ? String(value) : prior + ', ' + String(value));
  }
  set(name, value) { this.#map.set(String(name).toLowerCase(), String(value)); }
  get(name) {
    const value = this.#map.get(String(name).toLowerCase());
    return value === undefined ? null : value;
  }
  has(name) { return this.#map.has(String(name).toLowerCase()); }
  delete(name) { this.#map.delete(String(name).toLowerCase()); }
  forEach(callback, thisArg) { for (const [name, value] of this.#map) callback.call(thisArg, value, name, this); }
  entries() { return this.#map.entries(); }
  keys() { return this.#map.keys(); }
  values() { return this.#map.values(); }
  [Symbol.iterator]() { return this.#map.entries(); }
}
globalThis.Headers = Headers;

class FetchResponse {
  #body;
  #used = false;
  constructor(answer) {
    this.status = answer.status;
    this.statusText = answer.statusText;
    this.ok = answer.status >= 200 && answer.status < 300;
    this.url = answer.url;
    this.redirected = answer.redirected;
    this.headers = new Headers(answer.headers);
    this.#body = answer.body;
  }
  get bodyUsed() { return this.#used; }
  async text() {
    if (this.#used) throw new TypeErrorClass('Body has already been read');
    this.#used = true;
    return this.#body;
  }
  async json() { return parse(await this.text()); }
}

const pendingFetches = new MapClass();
let fetchCount = 0;
globalThis.fetch = function fetch(input, init) {
  return new PromiseClass((resolve, reject) => {
    const options = init === undefined || init === null ? {} : init;
    const url =
      typeof input === 'string' ? input
      : input !== null && typeof input === 'object' && typeof input.href === 'string' ? input.href
      : input !== null && typeof input === 'object' && typeof input.url === 'string' ? input.url
      : String(input);
    let body = options.body === undefined || options.body === null ? null : options.body;
    const headers = headerPairs(options.headers);
    // A form, as Node's fetch sends one (token requests to an authorization server are usually this).
    if (body instanceof URLSearchParams) {
      body = body.toString();
      if (!headers.some((pair) => pair[0].toLowerCase() === 'content-type')) headers.push(['content-type', 'application/x-www-form-urlencoded;charset=UTF-8']);
    }
    if (body !== null && typeof body !== 'string') throw new TypeErrorClass('fetch: the request body must be a string (use JSON.stringify) or a URLSearchParams');
    const request = {
      url,
      method: options.method === undefined ? 'GET' : String(options.method).toUpperCase(),
      headers,
      body,
      redirect: options.redirect === undefined ? 'follow' : String(options.redirect),
    };
    fetchCount += 1;
    const id = fetchCount;
    pendingFetches.set(id, { resolve, reject });
    try {
      hostFetch(id, request);
    } catch (error) {
      pendingFetches.delete(id);
      throw error;
    }
  });
};

function deliver(id, outcome) {
  const pending = pendingFetches.get(id);
  if (pending === undefined) return;
  pendingFetches.delete(id);
  if (typeof outcome.error === 'string') pending.reject(new TypeErrorClass('fetch failed: ' + outcome.error));
  else pending.resolve(new FetchResponse(outcome.response));
}

${WEB_GLOBALS_PRELUDE}
${ANSWERING_API_PRELUDE}
// ---- the CommonJS module: loaded once per context by the version's compiled script ----
function require(name) {
  const error = new ErrorClass("Cannot find module '" + String(name) + "': an action can require only the dependencies it declares");
  error.code = 'MODULE_NOT_FOUND';
  throw error;
}
const module = { exports: {} };
let loadError = null;
Object.defineProperty(globalThis, '__latchkeyLoad', {
  configurable: true,
  value(factory) {
    delete globalThis.__latchkeyLoad;
    try {
      factory.call(module.exports, module.exports, module, require);
    } catch (error) {
      loadError = describeError(error);
    }
  },
});

// ---- one execution ----
function buildApi(recording, answering, execution) {
  const api = {};
  const place = (op, method) => {
    const path = op.split('.');
    let node = api;
    for (let i = 0; i < path.length - 1; i += 1) node = node[path[i]] || (node[path[i]] = {});
    node[path[path.length - 1]] = method;
  };
  for (const op of recording) {
    // A snapshot of the arguments as JSON, taken now: later changes to the objects passed do not alter the record.
    place(op, (...args) => {
      execution.commands.push({ op, args: parse(stringify(args)) });
      return api;
    });
  }
  for (const op of answering) {
    const answer = ANSWERING_METHODS[op];
    if (answer !== undefined) place(op, answer(execution));
  }
  return api;
}

/**
 * The execution's view of the host state: the clock, the action's cache entries, the login's binding. The clock is
 * the host's at the execution's start, for the whole execution (at most its time limit): tokens and cache entries
 * are dated by the host's clock, whatever the isolate's Date says.
 */
function executionOf(handlerName, eventJson, host) {
  const hostNow = typeof host.now === 'number' ? host.now : dateNow();
  const cache = new MapClass();
  if (host.cache !== null && typeof host.cache === 'object') {
    for (const key of objectKeys(host.cache)) {
      const record = host.cache[key];
      if (record !== null && typeof record === 'object' && typeof record.value === 'string' && typeof record.expires_at === 'number') {
        cache.set(key, { value: record.value, expires_at: record.expires_at });
      }
    }
  }
  return {
    handlerName,
    eventJson,
    commands: [],
    cache,
    login: host.login !== null && typeof host.login === 'object' ? host.login : null,
    clock: () => hostNow,
  };
}

async function run(handlerName, eventJson, recording, answering, host) {
  logging = true;
  timersLeft = settings.maxTimers;
  hostCallsLeft = settings.maxHostCalls;
  if (loadError !== null) return stringify({ error: loadError });
  const execution = executionOf(handlerName, eventJson, host);
  // An uncaught error in one of this execution's timers ends it, as an uncaught exception ends a Node process.
  const crashed = new PromiseClass((_, reject) => {
    timerCrash = reject;
  });
  try {
    const exported = module.exports;
    const handler = exported === null || exported === undefined ? undefined : exported[handlerName];
    if (typeof handler !== 'function') return stringify({ missing: true });
    await promiseRace([handler(parse(eventJson), buildApi(recording, answering, execution)), crashed]);
  } catch (error) {
    return stringify({ error: describeError(error) });
  } finally {
    // Nothing of this execution outlives it: its pending timers and requests are forgotten.
    timerCrash = null;
    timers.clear();
    pendingFetches.clear();
  }
  return stringify({ commands: execution.commands });
}

return [run, deliver, fireTimer];
})`;

/**
 * The action's code as the compiled script of its version: a CommonJS module body handed to the prelude's loader.
 * The header shares the code's first line so that line numbers in stack traces are the tenant's own.
 */
export function moduleScript(code: string): string {
  return `__latchkeyLoad(function (exports, module, require) {${code}\n});`;
}
