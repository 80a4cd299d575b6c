import ivm from 'isolated-vm';
import type { ActionError } from './execution-result.js';
import { endScope, remainingMs, SandboxContext, type ExecutionHostState, type ExecutionScope, type PreludeSettings } from './sandbox-context.js';
import { moduleScript, SANDBOX_PRELUDE } from './sandbox-prelude.js';

export interface SandboxLimits {
  memoryLimitMb: number;
  maxIdleIsolates: number;
  /** How long an idle isolate beyond a version's most recently used one is kept. */
  idleTtlMs: number;
  prelude: PreludeSettings;
  onCatastrophicError?: (message: string) => void;
}

/** The action's code does not compile. */
export class ActionCompileError extends Error {}

const OVERRUN = Symbol('overrun');

/** isolated-vm sets `cachedData` on a script compiled with `produceCachedData` (its typings leave it out of Script). */
const producedCache = (script: ivm.Script) => (script as ivm.Script & ivm.CachedDataResult).cachedData;

/**
 * V8's code cache of the prelude, made by the first isolate that compiles it and used by every later one: the
 * prelude's text is the same for all versions, and this saves parsing it in each new isolate.
 */
let preludeCache: ivm.ExternalCopy<ArrayBuffer> | undefined;

async function compilePrelude(isolate: ivm.Isolate): Promise<ivm.Script> {
  const script = await isolate.compileScript(SANDBOX_PRELUDE, {
    filename: 'latchkey-actions-runtime.js',
    ...(preludeCache ? { cachedData: preludeCache } : { produceCachedData: true }),
  });
  preludeCache ??= producedCache(script);
  return script;
}

/**
 * One isolate of a version (a heap with its own memory limit), the prelude and the version's code compiled in it,
 * and, once it has run, a loaded context for warm executions. It serves one execution at a time.
 */
class Lane {
  context: SandboxContext | null = null;
  /** performance.now() when it was last freed, for trimming idle lanes. */
  freedAt = 0;

  constructor(
    readonly isolate: ivm.Isolate,
    readonly prelude: ivm.Script,
    readonly script: ivm.Script,
  ) {}

  dropContext(): void {
    this.context?.release();
    this.context = null;
  }

  dispose(): void {
    this.dropContext();
    if (!this.isolate.isDisposed) this.isolate.dispose();
  }
}

/**
 * One action version, run in isolates of its own: nothing is shared with other versions or with our process.
 *
 * Each running execution has an isolate to itself (a lane): concurrent executions of the version run in separate
 * isolates (on separate threads), each with the memory limit, and finished lanes are kept loaded (up to
 * `maxIdleIsolates`; beyond the most recently used one, for `idleTtlMs`: see `trimIdle`) so that a warm execution
 * costs only the call. So one execution that runs away (loops past its time, allocates past its memory) costs only
 * its own isolate, which is disposed (the only way to stop code that holds an isolate's thread), and never an
 * execution that happened to run beside it: no innocent execution is aborted or re-run, and no handler sees its
 * side effects (a fetch, a log line) twice. (The alternative, concurrent executions in contexts of one shared
 * isolate, re-running those aborted with it, cannot save the executions queued behind a loop: an isolate runs one
 * context at a time, so they wait on its thread until the loop's own deadline.) The price is a cold start (a new
 * isolate, about 1.6 ms of it on our main thread, then the code compiled from V8's code cache and a context: 3-5
 * ms in all) for each execution beyond those the idle lanes serve at once, and an isolate's memory (about 1.3 MB)
 * per idle lane.
 *
 * A lane whose execution failed in the prelude's machinery drops its context (its module state is unknown) but
 * keeps its isolate; a lane whose execution timed out or went over the memory limit is disposed.
 */
/**
 * How long an execution waits for a busy lane to come free before it opens an isolate of its own. Warm executions
 * take a fraction of a millisecond, so a burst of them is served faster by the loaded lanes in turn than by cold
 * isolates (3-5 ms each, and disposed again past `maxIdleIsolates`); a lane held by a runaway execution is not
 * waited for past this.
 */
const WAIT_FOR_LANE_MS = 20;

interface LaneWaiter {
  take(lane: Lane): void;
  timer: NodeJS.Timeout;
}

export class VersionSandbox {
  private readonly idle: Lane[] = [];
  private readonly busy = new Set<Lane>();
  /** Executions waiting for a lane, first come first served. */
  private readonly waiting: LaneWaiter[] = [];
  /** Lanes being opened now (they count towards the lanes a version keeps). */
  private opening = 0;
  private retired = false;
  /** V8's code cache of the version's module, made by its first isolate and used by the next ones. */
  private moduleCache: ivm.ExternalCopy<ArrayBuffer> | undefined;

  private constructor(
    private readonly code: string,
    private readonly limits: SandboxLimits,
  ) {}

  /** Compiles the version in its first isolate; throws ActionCompileError when the code does not compile. */
  static async compile(code: string, limits: SandboxLimits): Promise<VersionSandbox> {
    const sandbox = new VersionSandbox(code, limits);
    sandbox.idle.push(await sandbox.openLane());
    return sandbox;
  }

  /** False once retired: the runtime then compiles the version anew. */
  get usable(): boolean {
    return !this.retired;
  }

  /** Runs one execution; resolves to the prelude's answer, or to the error that ended the execution. */
  async execute(
    handlerName: string,
    eventJson: string,
    recording: readonly string[],
    answering: readonly string[],
    host: ExecutionHostState,
    scope: ExecutionScope,
  ): Promise<{ output: unknown } | { error: ActionError }> {
    let lane: Lane | undefined;
    let overran = false;
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<typeof OVERRUN>((resolve) => {
      timer = setTimeout(resolve, remainingMs(scope), OVERRUN);
    });
    const work = (async () => {
      const taken = await this.takeLane();
      if (overran) {
        // The execution overran while its isolate was being made: the fresh isolate can serve the next one.
        this.release(taken);
        throw new Error('overran');
      }
      this.busy.add(taken);
      lane = taken;
      if (taken.context) taken.context.scope = scope;
      else taken.context = await SandboxContext.create(taken.isolate, taken.prelude, taken.script, scope, this.limits.prelude);
      return taken.context.execute(handlerName, eventJson, recording, answering, host, remainingMs(scope));
    })();
    try {
      const output = await Promise.race([work, overrun]);
      if (output === OVERRUN) {
        overran = true;
        work.catch(() => undefined);
        // Whatever the execution's code is doing, its isolate serves no one else: disposing it stops the code.
        lane?.dispose();
        return { error: timeoutError(scope) };
      }
      return { output };
    } catch (error) {
      return { error: this.describeFailure(error, lane, scope) };
    } finally {
      clearTimeout(timer);
      endScope(scope);
      if (lane) this.release(lane);
    }
  }

  /** No new executions; the idle isolates go now, the busy ones when their executions end (a new version). */
  retire(): void {
    this.retired = true;
    for (const lane of this.idle.splice(0)) lane.dispose();
    // Those waiting for a lane get a new one each (it goes when they end).
    for (const waiter of this.waiting.splice(0)) {
      clearTimeout(waiter.timer);
      this.openCounted().then(waiter.take, () => undefined);
    }
  }

  /**
   * Disposes the idle lanes unused for `idleTtlMs`, but the most recently used one: a burst of concurrent logins
   * leaves loaded isolates behind, which serve the next burst and go once the traffic is back to one at a time.
   */
  trimIdle(): void {
    const before = performance.now() - this.limits.idleTtlMs;
    // The stack's bottom holds the longest unused.
    while (this.idle.length > 1 && (this.idle[0]?.freedAt ?? Infinity) < before) this.idle.shift()?.dispose();
  }

  /** Disposes every isolate now, failing any running execution (`aborted`). */
  dispose(): void {
    this.retire();
    for (const lane of this.busy) lane.dispose();
  }

  /**
   * A loaded idle lane; else, while the version has fewer than `maxIdleIsolates` lanes, a new one; else the next lane
   * to come free, or a new one after WAIT_FOR_LANE_MS.
   */
  private takeLane(): Promise<Lane> {
    const idle = this.idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.busy.size + this.opening < this.limits.maxIdleIsolates) return this.openCounted();
    return new Promise<Lane>((resolve, reject) => {
      const waiter: LaneWaiter = {
        take: resolve,
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(waiter);
          if (at !== -1) this.waiting.splice(at, 1);
          this.openCounted().then(resolve, reject);
        }, WAIT_FOR_LANE_MS),
      };
      this.waiting.push(waiter);
    });
  }

  private async openCounted(): Promise<Lane> {
    this.opening += 1;
    try {
      return await this.openLane();
    } finally {
      this.opening -= 1;
    }
  }

  private async openLane(): Promise<Lane> {
    const isolate = new ivm.Isolate({
      memoryLimit: this.limits.memoryLimitMb,
      ...(this.limits.onCatastrophicError ? { onCatastrophicError: this.limits.onCatastrophicError } : {}),
    });
    try {
      const prelude = await compilePrelude(isolate);
      let script: ivm.Script;
      try {
        script = await isolate.compileScript(moduleScript(this.code), {
          filename: 'action.js',
          ...(this.moduleCache ? { cachedData: this.moduleCache } : { produceCachedData: true }),
        });
      } catch (error) {
        throw new ActionCompileError(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
      }
      this.moduleCache ??= producedCache(script);
      return new Lane(isolate, prelude, script);
    } catch (error) {
      isolate.dispose();
      throw error;
    }
  }

  /** The lane is free again: kept loaded for the next execution, or disposed. */
  private release(lane: Lane) {
    this.busy.delete(lane);
    if (lane.context) lane.context.scope = null;
    lane.freedAt = performance.now();
    const reusable = !lane.isolate.isDisposed && this.usable;
    const waiter = reusable ? this.waiting.shift() : undefined;
    if (waiter) {
      clearTimeout(waiter.timer);
      waiter.take(lane);
      return;
    }
    if (reusable && this.idle.length < this.limits.maxIdleIsolates) this.idle.push(lane);
    else lane.dispose();
    this.trimIdle();
  }

  private describeFailure(error: unknown, lane: Lane | undefined, scope: ExecutionScope): ActionError {
    const message = error instanceof Error ? error.message : String(error);
    // isolated-vm's words for its own limits. Either way the lane's state is unknown: it goes.
    if (/memory limit/i.test(message)) {
      lane?.dispose();
      return { kind: 'memory_limit', message: `The action went over its memory limit of ${this.limits.memoryLimitMb} MB` };
    }
    if (/execution timed out/i.test(message)) {
      lane?.dispose();
      return timeoutError(scope);
    }
    if (error instanceof ActionCompileError) return { kind: 'compile_error', message: `The action's code does not compile: ${error.message}` };
    if (lane?.isolate.isDisposed) return { kind: 'aborted', message: 'The action was stopped: the version was replaced or the runtime shut down' };
    // The sandbox's own promise rejected: the tenant's code broke the prelude's machinery (e.g. a throwing toJSON).
    lane?.dropContext();
    return { kind: 'thrown', message, name: error instanceof Error ? error.name : 'Error' };
  }
}

function timeoutError(scope: ExecutionScope): ActionError {
  return { kind: 'timeout', message: `The action ran longer than its limit of ${scope.timeoutMs} ms` };
}
