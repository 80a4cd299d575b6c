/**
 * The Actions runtime (issue 28, §3): runs tenant code in V8 isolates of npm `isolated-vm`, never in our process's
 * context.
 *
 * Why isolated-vm rather than quickjs-emscripten: `node --import tsx bench/actions-runtime.ts`, Node 20.20, a
 * 2-CPU machine shared with other work (load average 3-5), five runs; medians of 3,000 warm and 15 cold
 * executions; the same in-engine prelude, module and marshalled post-login event (about 1.5 KB) for both engines.
 *
 *   |                                                  | isolated-vm | quickjs-emscripten | quickjs / ivm |
 *   |--------------------------------------------------|-------------|--------------------|---------------|
 *   | warm execution in a loaded context               | 0.07-0.10 ms| 0.17-0.22 ms       | 2.1-2.6       |
 *   | cold: new isolate, compile, first execution      | 3.2-4.9 ms  | 1.1-6.6 ms         | 0.2-2.1       |
 *   | memory per loaded isolate (process RSS growth)   | 1.06 MB     | 0.4-1.1 MB         | 0.4-1.0       |
 *   | host timers' worst lateness while tenant code    | 2-11 ms (*) | 296-303 ms         |               |
 *   | loops for 300 ms                                 |             |                    |               |
 *   | Latchkey's runtime end to end, warm (this file)  | 0.21-0.30 ms|                    |               |
 *
 *   (*) one run under heavier load: 245 ms, the OS not scheduling the host thread; QuickJS's figure is structural.
 *
 * Warm executions are what a login pays, and isolated-vm's is the cheaper (the budget is 2 ms per warm
 * action); a cold start happens once per version and process, and QuickJS's smaller isolates do not outweigh the
 * rest. The deciding difference is the host's lateness: an isolate runs on a
 * thread of its own, so a tenant's infinite loop costs one thread until its limit while the server keeps
 * answering, where QuickJS compiled to WebAssembly runs on the calling thread and stalls every request for the
 * whole loop (matching that would take a worker pool of our own). V8 also runs the platform's JavaScript as the
 * platform does (the same engine and built-ins). A fresh context per execution costs 1.1-1.5 ms, more than ten
 * warm executions, so loaded isolates (each with its context) are pooled per version (version-sandbox.ts).
 *
 * With the web globals and the answering api in the prelude and an isolate per running execution (issue 28, §2-3),
 * `npm run bench:actions` against the runtime before them, three interleaved runs each on the same machine under
 * heavier load (load average 9-11): warm 0.21-0.25 ms (before: 0.18-0.27 ms, no change beyond the noise); a new
 * version's first execution 5.0-6.6 ms (before: 4.8-5.3 ms); a burst of eight concurrent executions of a warm
 * version 1.5-2.6 ms (before: 9-34 ms, the eight queued on one isolate's thread, four of them in fresh contexts);
 * the process's very first execution 15-40 ms, one run at 98 ms (before: 11-15 ms: the prelude grew from 7 to
 * 43 KB, compiled once without V8's code cache).
 *
 * What an execution gets: the JSON-marshalled `event`; an `api` whose recording methods only record commands and
 * whose answering methods (`api.cache`, `api.redirect.encodeToken` / `validateToken`) answer from host state handed
 * in with `execute`'s options (handlers.ts); `console` captured into bounded logs; `fetch` performed by the host
 * under LATCHKEY_ACTIONS_EGRESS with a timeout; the web globals the platform's examples use (`URL`,
 * `URLSearchParams`, `TextEncoder` / `TextDecoder`, `atob` / `btoa`, timers that end with the execution, `crypto`'s
 * randomness, a `Buffer` subset: sandbox-web-globals.ts); and a `require` that refuses every module until
 * dependencies are bundled. No `process`, no file system, no environment.
 *
 * Containment: each running execution has an isolate of its own (version-sandbox.ts), so an execution that loops
 * or allocates past its limits loses only its own isolate; executions of the same version beside it go on.
 */
import { DEFAULT_ACTIONS_EGRESS, type ActionsEgress } from '../../config/actions-egress.js';
import { ACTION_CACHE_LIMITS, type ActionCacheEntries } from './action-cache.js';
import { ExecutionLogs } from './execution-logs.js';
import { readSandboxOutput, type ActionError, type ActionExecution } from './execution-result.js';
import { ACTION_HANDLERS, TRIGGER_ANSWERING_METHODS, TRIGGER_API_METHODS, triggerCommandOps, type ActionHandlerName, type ApiCommand } from './handlers.js';
import type { ExecutionHostState } from './sandbox-context.js';
import { MAX_SIGNED_CHARS } from './sandbox-host-callbacks.js';
import { ActionCompileError, VersionSandbox, type SandboxLimits } from './version-sandbox.js';

/** One deployed (or tested) version of an action; a version's code never changes, so it is compiled once. */
export interface ActionVersion {
  actionId: string;
  versionId: string;
  code: string;
}

export interface ActionsRuntimeOptions {
  /** Wall time of one execution, compilation and waiting on fetch included (default 5 s). */
  timeoutMs?: number;
  /** Heap limit of an execution's isolate (default 64 MB). */
  memoryLimitMb?: number;
  egress?: ActionsEgress;
  /** One fetch's limit, never past the execution's own (default 5 s). */
  fetchTimeoutMs?: number;
  maxResponseBytes?: number;
  /** Requests one execution may make (default 20). */
  maxFetchesPerExecution?: number;
  /** Console output kept per execution, in characters (default 64 Ki). */
  maxLogChars?: number;
  /**
   * Loaded isolates kept per version for warm executions, about 1.3 MB each (default 8): as many concurrent
   * executions of a version run warm. Beyond the most recently used one they go after `idleIsolateTtlMs`.
   */
  maxIdleIsolatesPerVersion?: number;
  /** How long an idle isolate beyond a version's most recently used one is kept (default 60 s). */
  idleIsolateTtlMs?: number;
  /** Timers (setTimeout) one execution may create (default 100). */
  maxTimersPerExecution?: number;
  /**
   * Calls into the host one execution may make for URL parsing, randomness and api.redirect's HMACs (default
   * 2,000): they run on our main thread (sandbox-web-globals.ts).
   */
  maxHostCallsPerExecution?: number;
  /** Versions kept compiled; the least recently used beyond this are disposed (default 200). */
  maxCachedVersions?: number;
  /** isolated-vm's report that V8 lost control of an isolate: the process should stop serving (see its README). */
  onCatastrophicError?: (message: string) => void;
}

/** The login an execution belongs to: what api.redirect's tokens are bound to. */
export interface ActionLogin {
  /** The tenant's domain, the tokens' `iss` (e.g. `login.example.com`). */
  domain: string;
  /** The user's id, the tokens' `sub`. */
  userId: string;
  /**
   * The login's state for /continue: in onExecutePostLogin the state the redirect will carry (in encodeToken's
   * tokens), in onContinuePostLogin the state /continue came back with (validateToken requires it in the token).
   */
  state?: string;
}

/** Host state for one execution (all optional; the answering api methods need them, see handlers.ts). */
export interface ExecuteOptions {
  /** Wall time of this execution (default: the runtime's). */
  timeoutMs?: number;
  /** The action's api.cache entries, from ActionCacheStore.entries (default: none). */
  cache?: ActionCacheEntries;
  /** The login, for api.redirect.encodeToken / validateToken (post-login); without it they have no binding. */
  login?: ActionLogin;
  /** The clock, in milliseconds since the epoch (default Date.now()): expiry of tokens and cache entries. */
  now?: number;
}

export interface ActionsRuntime {
  /**
   * Runs `handlerName` of `version` with `event`; never throws for anything the tenant's code does. The
   * execution's commands include the api.cache changes (`cache.set`, `cache.delete`) for ActionCacheStore.apply.
   */
  execute(version: ActionVersion, handlerName: ActionHandlerName, event: object, options?: ExecuteOptions): Promise<ActionExecution>;
  /** Disposes the action's compiled version (the action was deleted) once its running executions end. */
  retire(actionId: string): void;
  /** Disposes every isolate now. */
  dispose(): void;
}

const MAX_RESULT_CHARS = 1024 * 1024;

interface CachedVersion {
  versionId: string;
  sandbox: Promise<VersionSandbox | ActionError>;
}

async function compileVersion(code: string, limits: SandboxLimits): Promise<VersionSandbox | ActionError> {
  try {
    return await VersionSandbox.compile(code, limits);
  } catch (error) {
    if (!(error instanceof ActionCompileError)) throw error;
    return { kind: 'compile_error', message: `The action's code does not compile: ${error.message}` };
  }
}

function retireCached(entry: CachedVersion) {
  void entry.sandbox.then((sandbox) => {
    if (sandbox instanceof VersionSandbox) sandbox.retire();
  });
}

export function createActionsRuntime(options: ActionsRuntimeOptions = {}): ActionsRuntime {
  const settings = {
    timeoutMs: options.timeoutMs ?? 5_000,
    egress: options.egress ?? DEFAULT_ACTIONS_EGRESS,
    fetchTimeoutMs: options.fetchTimeoutMs ?? 5_000,
    maxResponseBytes: options.maxResponseBytes ?? 1024 * 1024,
    maxFetchesPerExecution: options.maxFetchesPerExecution ?? 20,
    maxLogChars: options.maxLogChars ?? 64 * 1024,
    maxCachedVersions: options.maxCachedVersions ?? 200,
  };
  const limits: SandboxLimits = {
    memoryLimitMb: options.memoryLimitMb ?? 64,
    maxIdleIsolates: options.maxIdleIsolatesPerVersion ?? 8,
    idleTtlMs: options.idleIsolateTtlMs ?? 60_000,
    prelude: {
      maxLineChars: settings.maxLogChars,
      maxTimers: options.maxTimersPerExecution ?? 100,
      maxHostCalls: options.maxHostCallsPerExecution ?? 2_000,
      maxTokenChars: MAX_SIGNED_CHARS,
      cache: { ...ACTION_CACHE_LIMITS },
    },
    ...(options.onCatastrophicError ? { onCatastrophicError: options.onCatastrophicError } : {}),
  };
  /** By action id, least recently used first (a Map keeps insertion order; a use re-inserts). */
  const versions = new Map<string, CachedVersion>();
  // Idle isolates left by a burst go once unused for their time; the sweep never keeps the process alive.
  const sweeper = setInterval(() => {
    for (const entry of versions.values()) {
      void entry.sandbox.then((sandbox) => {
        if (sandbox instanceof VersionSandbox) sandbox.trimIdle();
      });
    }
  }, Math.max(1_000, limits.idleTtlMs / 2));
  sweeper.unref();

  function cache(actionId: string, entry: CachedVersion) {
    versions.delete(actionId);
    versions.set(actionId, entry);
    for (const [oldestId, oldest] of versions) {
      if (versions.size <= settings.maxCachedVersions) break;
      versions.delete(oldestId);
      retireCached(oldest);
    }
  }

  /** The version's sandbox: cached, or compiled now (a new version of an action retires the previous one). */
  async function sandboxFor(version: ActionVersion): Promise<VersionSandbox | ActionError> {
    for (;;) {
      const cached = versions.get(version.actionId);
      if (cached?.versionId === version.versionId) {
        cache(version.actionId, cached);
        const sandbox = await cached.sandbox;
        if (!(sandbox instanceof VersionSandbox) || sandbox.usable) return sandbox;
        // Retired under us (the runtime's limit of cached versions): compile the version anew.
        if (versions.get(version.actionId) === cached) versions.delete(version.actionId);
        continue;
      }
      if (cached) retireCached(cached);
      cache(version.actionId, { versionId: version.versionId, sandbox: compileVersion(version.code, limits) });
    }
  }

  return {
    async execute(version, handlerName, event, executeOptions = {}) {
      const started = performance.now();
      const timeoutMs = executeOptions.timeoutMs ?? settings.timeoutMs;
      const logs = new ExecutionLogs(settings.maxLogChars);
      const finish = (outcome: { error: ActionError } | { commands: ApiCommand[] }): ActionExecution => {
        const base = { logs: logs.result(), durationMs: performance.now() - started };
        return 'error' in outcome ? { ok: false, error: outcome.error, ...base } : { ok: true, commands: outcome.commands, ...base };
      };
      const sandbox = await sandboxFor(version);
      if (!(sandbox instanceof VersionSandbox)) return finish({ error: sandbox });
      const trigger = ACTION_HANDLERS[handlerName];
      const host: ExecutionHostState = {
        now: executeOptions.now ?? Date.now(),
        cache: executeOptions.cache ?? {},
        login: executeOptions.login
          ? { domain: executeOptions.login.domain, userId: executeOptions.login.userId, state: executeOptions.login.state ?? null }
          : null,
      };
      const scope = {
        logs,
        deadline: started + timeoutMs,
        timeoutMs,
        abort: new AbortController(),
        egress: settings.egress,
        fetchTimeoutMs: settings.fetchTimeoutMs,
        maxResponseBytes: settings.maxResponseBytes,
        fetchesLeft: settings.maxFetchesPerExecution,
        timers: new Map<number, NodeJS.Timeout>(),
      };
      const answer = await sandbox.execute(handlerName, JSON.stringify(event), TRIGGER_API_METHODS[trigger], TRIGGER_ANSWERING_METHODS[trigger], host, scope);
      if ('error' in answer) return finish(answer);
      return finish(readSandboxOutput(answer.output, handlerName, triggerCommandOps(trigger), MAX_RESULT_CHARS));
    },

    retire(actionId) {
      const cached = versions.get(actionId);
      if (!cached) return;
      versions.delete(actionId);
      retireCached(cached);
    },

    dispose() {
      clearInterval(sweeper);
      for (const entry of versions.values()) {
        void entry.sandbox.then((sandbox) => {
          if (sandbox instanceof VersionSandbox) sandbox.dispose();
        });
      }
      versions.clear();
    },
  };
}
