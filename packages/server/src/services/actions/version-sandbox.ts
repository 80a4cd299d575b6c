import ivm from 'isolated-vm';
import type { ActionError } from './execution-result.js';
import { remainingMs, SandboxContext, type ExecutionScope } from './sandbox-context.js';
import { moduleScript } from './sandbox-prelude.js';

export interface SandboxLimits {
  memoryLimitMb: number;
  maxIdleContexts: number;
  maxLogLineChars: number;
  onCatastrophicError?: (message: string) => void;
}

/** The action's code does not compile. */
export class ActionCompileError extends Error {}

const OVERRUN = Symbol('overrun');

/**
 * One action version: its own isolate (a heap with its own memory limit, nothing shared with other versions or
 * with our process), its code compiled once, and a pool of loaded contexts so that a warm execution costs only
 * the call. A context whose execution failed is dropped rather than reused (its module state is unknown); the
 * isolate itself is dropped when it went over its memory limit or an execution overran its wall time (the
 * overrunning code may still hold the isolate's thread, and disposing the isolate is the only way to stop it).
 */
export class VersionSandbox {
  private readonly idle: SandboxContext[] = [];
  private active = 0;
  private retired = false;
  /** Why we disposed the isolate under running executions, for the error those executions get. */
  private disposedFor: 'memory_limit' | 'timeout' | null = null;

  private constructor(
    private readonly isolate: ivm.Isolate,
    private readonly script: ivm.Script,
    private readonly limits: SandboxLimits,
  ) {}

  static async compile(code: string, limits: SandboxLimits): Promise<VersionSandbox> {
    const isolate = new ivm.Isolate({
      memoryLimit: limits.memoryLimitMb,
      ...(limits.onCatastrophicError ? { onCatastrophicError: limits.onCatastrophicError } : {}),
    });
    try {
      const script = await isolate.compileScript(moduleScript(code), { filename: 'action.js' });
      return new VersionSandbox(isolate, script, limits);
    } catch (error) {
      isolate.dispose();
      throw new ActionCompileError(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    }
  }

  /** False once retired or once its isolate is gone: the runtime then compiles the version anew. */
  get usable(): boolean {
    return !this.retired && !this.isolate.isDisposed;
  }

  /** Runs one execution; resolves to the prelude's answer, or to the error that ended the execution. */
  async execute(handlerName: string, eventJson: string, methods: readonly string[], scope: ExecutionScope): Promise<{ output: unknown } | { error: ActionError }> {
    this.active += 1;
    let context: SandboxContext | undefined;
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<typeof OVERRUN>((resolve) => {
      timer = setTimeout(resolve, remainingMs(scope), OVERRUN);
    });
    const work = (async () => {
      context = this.idle.pop();
      if (context) context.scope = scope;
      else context = await SandboxContext.create(this.isolate, this.script, scope, this.limits.maxLogLineChars);
      return context.execute(handlerName, eventJson, methods, remainingMs(scope));
    })();
    try {
      const output = await Promise.race([work, overrun]);
      if (output === OVERRUN) {
        work.catch(() => undefined);
        this.disposeIsolate('timeout');
        return { error: timeoutError(scope) };
      }
      if (context) this.recycle(context);
      context = undefined;
      return { output };
    } catch (error) {
      return { error: this.describeFailure(error, scope) };
    } finally {
      clearTimeout(timer);
      scope.abort.abort();
      context?.release();
      this.active -= 1;
      if (this.retired && this.active === 0) this.dispose();
    }
  }

  /** No new executions; the isolate goes once the running ones are done (a new version was deployed). */
  retire(): void {
    this.retired = true;
    if (this.active === 0) this.dispose();
  }

  /** Disposes the isolate now, failing any running execution. */
  dispose(): void {
    this.retired = true;
    for (const context of this.idle.splice(0)) context.release();
    if (!this.isolate.isDisposed) this.isolate.dispose();
  }

  private recycle(context: SandboxContext) {
    context.scope = null;
    if (this.usable && this.idle.length < this.limits.maxIdleContexts) this.idle.push(context);
    else context.release();
  }

  private disposeIsolate(reason: 'memory_limit' | 'timeout') {
    this.disposedFor ??= reason;
    for (const context of this.idle.splice(0)) context.release();
    if (!this.isolate.isDisposed) this.isolate.dispose();
  }

  private describeFailure(error: unknown, scope: ExecutionScope): ActionError {
    const message = error instanceof Error ? error.message : String(error);
    // isolated-vm's words for its own limits.
    if (/memory limit/i.test(message)) {
      this.disposeIsolate('memory_limit');
      return { kind: 'memory_limit', message: `The action went over its memory limit of ${this.limits.memoryLimitMb} MB` };
    }
    if (/execution timed out/i.test(message)) return timeoutError(scope);
    if (this.isolate.isDisposed) {
      const because =
        this.disposedFor === 'memory_limit' ? 'another execution of this version went over the memory limit'
        : this.disposedFor === 'timeout' ? 'another execution of this version ran past its time limit'
        : 'the version was replaced or the runtime shut down';
      return { kind: 'aborted', message: `The action was stopped: ${because}` };
    }
    // The sandbox's own promise rejected: the tenant's code broke the prelude's machinery (e.g. a throwing toJSON).
    return { kind: 'thrown', message, name: error instanceof Error ? error.name : 'Error' };
  }
}

function timeoutError(scope: ExecutionScope): ActionError {
  return { kind: 'timeout', message: `The action ran longer than its limit of ${scope.timeoutMs} ms` };
}
