import ivm from 'isolated-vm';
import type { ActionsEgress } from '../../config/actions-egress.js';
import type { ExecutionLogs } from './execution-logs.js';
import { outboundFetch, readOutboundRequest, type OutboundResponse } from './outbound-fetch.js';
import { SANDBOX_PRELUDE } from './sandbox-prelude.js';

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
}

export const remainingMs = (scope: ExecutionScope) => Math.max(1, Math.ceil(scope.deadline - performance.now()));

type FetchOutcome = { response: OutboundResponse } | { error: string };
type RunFunction = (handlerName: string, eventJson: string, methods: string[]) => Promise<string>;
type DeliverFunction = (id: number, outcome: FetchOutcome) => void;

/**
 * One V8 context of a version's isolate with the prelude and the action's module loaded. It runs one execution at
 * a time (`scope` says which), so that the global `console` and `fetch` of the tenant's code know where their
 * output belongs; a version runs concurrent executions in several contexts of its isolate.
 */
export class SandboxContext {
  scope: ExecutionScope | null = null;
  private run!: ivm.Reference<RunFunction>;
  private deliver!: ivm.Reference<DeliverFunction>;

  private constructor(private readonly context: ivm.Context) {}

  /** A new context: the prelude, then the version's compiled module, whose top level runs within `scope`. */
  static async create(isolate: ivm.Isolate, script: ivm.Script, scope: ExecutionScope, maxLineChars: number): Promise<SandboxContext> {
    const context = await isolate.createContext();
    const sandbox = new SandboxContext(context);
    sandbox.scope = scope;
    try {
      const log = new ivm.Callback((level: unknown, line: unknown) => sandbox.scope?.logs.add(level, line) ?? false);
      const startFetch = new ivm.Callback((id: unknown, request: unknown) => sandbox.startFetch(id, request));
      const functions = (await context.evalClosure(SANDBOX_PRELUDE, [log, startFetch, maxLineChars], { filename: 'latchkey-actions-runtime.js', result: { reference: true } })) as ivm.Reference<
        [RunFunction, DeliverFunction]
      >;
      sandbox.run = (await functions.get(0, { reference: true })) as ivm.Reference<RunFunction>;
      sandbox.deliver = (await functions.get(1, { reference: true })) as ivm.Reference<DeliverFunction>;
      functions.release();
      await script.run(context, { timeout: remainingMs(scope) });
    } catch (error) {
      context.release();
      throw error;
    }
    return sandbox;
  }

  /**
   * Runs the handler; resolves to the prelude's JSON answer. The isolate's own timeout stops code that keeps the
   * isolate busy; time spent waiting (on a fetch) is the caller's wall-time limit to enforce.
   */
  execute(handlerName: string, eventJson: string, methods: readonly string[], timeoutMs: number): Promise<unknown> {
    return this.run.apply(undefined, [handlerName, eventJson, [...methods]], {
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
      .then((result) => this.deliver.apply(undefined, [id, result], { arguments: { copy: true } }))
      .catch(() => {
        // The context or its isolate was disposed in the meantime: nobody is waiting for this answer.
      });
  }
}
