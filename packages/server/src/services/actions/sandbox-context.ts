import ivm from 'isolated-vm';
import type { ActionsEgress } from '../../config/actions-egress.js';
import type { ExecutionLogs } from './execution-logs.js';
import { outboundFetch, readOutboundRequest, type OutboundResponse } from './outbound-fetch.js';
import { hmacSha256, randomBytes, urlComponents } from './sandbox-host-callbacks.js';

/** What one execution lends the context it runs in: where console lines go, and the limits of its fetches. */
export interface ExecutionScope {
  logs: ExecutionLogs;
  /** performance.now() at which the execution's wall time is up. */
  deadline: number;
  timeoutMs: number;
  /** Aborted when the execution ends: its outstanding fetches stop. */
  abort: AbortController;
  egress: ActionsEgress;
  fetchTimeoutMs: number;
  maxResponseBytes: number;
  /** Requests this execution may still start: a loop of fetch calls must not turn into a flood from our host. */
  fetchesLeft: number;
  /** The execution's pending timers, by the sandbox's id: all cleared when it ends (`endScope`). */
  timers: Map<number, NodeJS.Timeout>;
}

export const remainingMs = (scope: ExecutionScope) => Math.max(1, Math.ceil(scope.deadline - performance.now()));

/** The execution is over: its fetches stop and its timers never fire. */
export function endScope(scope: ExecutionScope): void {
  scope.abort.abort();
  for (const timer of scope.timers.values()) clearTimeout(timer);
  scope.timers.clear();
}

/** The limits the prelude applies (sandbox-prelude.ts's `settingsJson`). */
export interface PreludeSettings {
  maxLineChars: number;
  maxTimers: number;
  /** Calls of the synchronous host callbacks (URL, randomness, HMAC) one execution may make. */
  maxHostCalls: number;
  maxTokenChars: number;
  cache: Record<string, number>;
}

/** What the host hands one execution besides its event (the answering api methods' state, see handlers.ts). */
export interface ExecutionHostState {
  /** The clock at the execution's start, in milliseconds since the epoch. */
  now: number;
  /** The action's cache entries (action-cache.ts). */
  cache: Record<string, { value: string; expires_at: number }>;
  /** The login the execution belongs to, for api.redirect's tokens; null outside a login. */
  login: { domain: string; userId: string; state: string | null } | null;
}

type FetchOutcome = { response: OutboundResponse } | { error: string };
type RunFunction = (handlerName: string, eventJson: string, recording: string[], answering: string[], host: ExecutionHostState) => Promise<string>;
type DeliverFunction = (id: number, outcome: FetchOutcome) => void;
type FireFunction = (id: number) => void;
type PreludeInstall = (...callbacks: unknown[]) => [RunFunction, DeliverFunction, FireFunction];

/**
 * One V8 context of an isolate with the prelude and the action's module loaded. It runs one execution at a time
 * (`scope` says which), so that the global `console`, `fetch` and timers of the tenant's code know where their
 * output belongs. Every entry into the context (the handler, a fetch's answer, a timer) carries the execution's
 * remaining time as the isolate's timeout, so code that keeps the isolate busy is stopped there by V8.
 */
export class SandboxContext {
  scope: ExecutionScope | null = null;
  private run!: ivm.Reference<RunFunction>;
  private deliver!: ivm.Reference<DeliverFunction>;
  private fire!: ivm.Reference<FireFunction>;

  private constructor(
    private readonly context: ivm.Context,
    private readonly maxTimers: number,
  ) {}

  /**
   * A new context: the prelude (`prelude`, compiled in this isolate), then the version's compiled module, whose
   * top level runs within `scope`.
   */
  static async create(isolate: ivm.Isolate, prelude: ivm.Script, script: ivm.Script, scope: ExecutionScope, settings: PreludeSettings): Promise<SandboxContext> {
    const context = await isolate.createContext();
    const sandbox = new SandboxContext(context, settings.maxTimers);
    sandbox.scope = scope;
    try {
      const install = (await prelude.run(context, { reference: true, timeout: remainingMs(scope) })) as ivm.Reference<PreludeInstall>;
      const callbacks = [
        new ivm.Callback((level: unknown, line: unknown) => sandbox.scope?.logs.add(level, line) ?? false),
        new ivm.Callback((id: unknown, request: unknown) => sandbox.startFetch(id, request)),
        new ivm.Callback(hmacSha256),
        new ivm.Callback(randomBytes),
        new ivm.Callback(urlComponents),
        new ivm.Callback((id: unknown, ms: unknown) => sandbox.timer(id, ms)),
        JSON.stringify(settings),
      ];
      const functions = await install.apply(undefined, callbacks, { result: { reference: true }, timeout: remainingMs(scope) });
      install.release();
      sandbox.run = (await functions.get(0, { reference: true })) as ivm.Reference<RunFunction>;
      sandbox.deliver = (await functions.get(1, { reference: true })) as ivm.Reference<DeliverFunction>;
      sandbox.fire = (await functions.get(2, { reference: true })) as ivm.Reference<FireFunction>;
      functions.release();
      await script.run(context, { timeout: remainingMs(scope) });
    } catch (error) {
      context.release();
      throw error;
    }
    return sandbox;
  }

  /** Runs the handler; resolves to the prelude's JSON answer. Time spent waiting is the caller's limit to enforce. */
  execute(handlerName: string, eventJson: string, recording: readonly string[], answering: readonly string[], host: ExecutionHostState, timeoutMs: number): Promise<unknown> {
    return this.run.apply(undefined, [handlerName, eventJson, [...recording], [...answering], host], {
      arguments: { copy: true },
      result: { promise: true, copy: true },
      timeout: timeoutMs,
    });
  }

  release(): void {
    this.scope = null;
    this.context.release();
  }

  /**
   * The host half of the sandbox's `fetch`: the outcome is delivered back into the context, unless the context or
   * its isolate is gone by then. A request started by code that outlived its execution (an un-awaited fetch)
   * is answered with an error.
   */
  private startFetch(id: unknown, raw: unknown): void {
    if (typeof id !== 'number') return;
    const scope = this.scope;
    const request = readOutboundRequest(raw);
    let outcome: Promise<FetchOutcome>;
    if (scope === null) outcome = Promise.resolve({ error: 'the execution that made this request has ended' });
    else if (typeof request === 'string') outcome = Promise.resolve({ error: request });
    else if (scope.fetchesLeft <= 0) outcome = Promise.resolve({ error: 'too many requests in one execution' });
    else {
      scope.fetchesLeft -= 1;
      // No earlier timeout for the execution's deadline: the execution's end aborts its requests, and its error
      // is then the timeout rather than a failed fetch the handler might catch.
      const limits = {
        egress: scope.egress,
        timeoutMs: scope.fetchTimeoutMs,
        maxResponseBytes: scope.maxResponseBytes,
        signal: scope.abort.signal,
      };
      outcome = outboundFetch(request, limits).then(
        (response) => ({ response }),
        (error: unknown) => ({ error: error instanceof Error ? error.message : 'the request failed' }),
      );
    }
    void outcome
      .then((result) => {
        // An execution that ended (or its context, or its isolate) is no longer waiting for this answer.
        if (scope === null || this.scope !== scope) return;
        return this.deliver.apply(undefined, [id, result], { arguments: { copy: true }, timeout: remainingMs(scope) });
      })
      .catch(() => {
        // Disposed in the meantime, or the code run on delivery overran: the execution's own limit reports it.
      });
  }

  /** The host half of setTimeout / clearTimeout (ms < 0): only within the execution, and never past its end. */
  private timer(id: unknown, ms: unknown): void {
    const scope = this.scope;
    if (scope === null || typeof id !== 'number' || typeof ms !== 'number') return;
    if (ms < 0) {
      clearTimeout(scope.timers.get(id));
      scope.timers.delete(id);
      return;
    }
    // One due after the execution's end would never fire. The prelude bounds how many an execution makes; so does
    // the host, should the prelude's count be subverted.
    if (ms > remainingMs(scope) || scope.timers.size >= this.maxTimers) return;
    const handle = setTimeout(() => {
      scope.timers.delete(id);
      if (this.scope !== scope) return;
      this.fire.apply(undefined, [id], { timeout: remainingMs(scope) }).catch(() => {
        // As for a fetch's answer: disposed meanwhile, or the callback overran.
      });
    }, ms);
    scope.timers.set(id, handle);
  }
}
