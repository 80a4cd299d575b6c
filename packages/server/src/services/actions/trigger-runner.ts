import type { BoundAction, BoundActions, ActionExecutionResult } from './bound-actions.js';
import type { ActionError, ActionExecution } from './execution-result.js';
import type { CapturedLogs } from './execution-logs.js';
import type { ActionHandlerName, ActionTrigger, ApiCommand } from './handlers.js';
import type { ActionLogin, ActionsRuntime } from './runtime.js';
import type { ActionCacheStore } from './action-cache.js';

/** One action's turn: the commands its `api` calls recorded, for the trigger to apply before the next action runs. */
export interface ActionTurn {
  action: BoundAction;
  /** The action's place in the trigger's bound list. */
  index: number;
  commands: ApiCommand[];
  /** The action's console output (a trigger that fails the request shows it in the tenant log). */
  logs: CapturedLogs;
}

/** What a trigger's reading of one action's commands decides: go on with the next action, or stop here. */
export type TurnVerdict = 'next' | 'stop';

/** An action that failed (threw, timed out, went over its memory, did not compile): the trigger's actions stop. */
export interface ActionFailure {
  action: BoundAction;
  error: ActionError;
  logs: CapturedLogs;
}

export interface TriggerRun {
  /** The recorded execution's id: a run is recorded when an action failed or stopped it (a denial, a redirect). */
  executionId: string | undefined;
  failure?: ActionFailure;
  /** How many actions ran to the end (a stop or a failure ends the run early). */
  completed: number;
}

export interface TriggerRunOptions {
  /** Where to start in the bound list (a login resumed after a redirect goes on after the redirecting action). */
  startAt?: number;
  /** The handler of the first action run (`onContinuePostLogin` for the action a user comes back to). */
  firstHandler?: ActionHandlerName;
  timeoutMs?: number;
  /** A post-login's binding for `api.redirect.encodeToken` / `validateToken`. */
  login?: ActionLogin;
}

export interface TriggerRunnerDeps {
  bound: BoundActions;
  runtime: ActionsRuntime;
  /** Total wall time of one trigger's actions together (the platform's is 20 s). */
  timeoutMs: number;
  /** The actions' `api.cache` entries (per node). */
  cache: ActionCacheStore;
  onRecordError?: (error: unknown) => void;
}

/** The platform's error ids in an execution's results, by how an execution failed. */
const ERROR_IDS: Record<ActionError['kind'], string> = {
  compile_error: 'compile_error',
  missing_handler: 'missing_handler',
  thrown: 'action_error',
  timeout: 'timeout',
  memory_limit: 'memory_limit',
  aborted: 'aborted',
  invalid_result: 'invalid_result',
};

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Runs the actions bound to a trigger, in the binding order, each with the event plus its own version's secrets,
 * and hands each one's recorded `api` calls to `apply` before the next runs (so that, as on the platform, a later
 * action sees what an earlier one changed in the event). The first failure stops the run; so does `apply`
 * answering 'stop' (a denial, a redirect). Such a run is recorded as an execution (`/api/v2/actions/executions/{id}`),
 * which the tenant log's event names.
 *
 * The runner knows no trigger: each trigger builds its event and reads its commands (oauth/post-login-actions.ts,
 * oauth/credentials-exchange-actions.ts, services/actions/registration-actions.ts).
 */
export function triggerRunner(deps: TriggerRunnerDeps) {
  return {
    /** Whether anything is bound to `trigger` (a caller with costly event parts skips them when nothing is). */
    async any(trigger: ActionTrigger): Promise<boolean> {
      return (await deps.bound.bound(trigger)).length > 0;
    },

    /** The action bound at `index` of `trigger` now (a resumed login checks it is still the one it left). */
    async boundAt(trigger: ActionTrigger, index: number): Promise<BoundAction | undefined> {
      return (await deps.bound.bound(trigger))[index];
    },

    async run(
      trigger: ActionTrigger,
      handler: ActionHandlerName,
      event: Record<string, unknown>,
      apply: (turn: ActionTurn) => TurnVerdict | Promise<TurnVerdict>,
      options: TriggerRunOptions = {},
    ): Promise<TriggerRun> {
      const actions = await deps.bound.bound(trigger);
      const startAt = options.startAt ?? 0;
      if (actions.length <= startAt) return { executionId: undefined, completed: 0 };
      const deadline = performance.now() + (options.timeoutMs ?? deps.timeoutMs);
      const results: ActionExecutionResult[] = [];
      let failure: ActionFailure | undefined;
      let completed = 0;
      let stopped = false;
      for (let index = startAt; index < actions.length; index += 1) {
        const action = actions[index] as BoundAction;
        const started = Date.now();
        const remaining = Math.max(1, Math.floor(deadline - performance.now()));
        const execution: ActionExecution = await deps.runtime.execute(
          { actionId: action.actionId, versionId: action.versionId, code: action.code },
          index === startAt && options.firstHandler ? options.firstHandler : handler,
          { ...event, secrets: action.secrets },
          { timeoutMs: remaining, cache: deps.cache.entries(action.actionId), ...(options.login ? { login: options.login } : {}) },
        );
        const ended = Date.now();
        if (!execution.ok) {
          failure = { action, error: execution.error, logs: execution.logs };
          results.push({ action_name: action.actionName, error: { id: ERROR_IDS[execution.error.kind], msg: execution.error.message }, started_at: iso(started), ended_at: iso(ended) });
          break;
        }
        results.push({ action_name: action.actionName, error: null, started_at: iso(started), ended_at: iso(ended) });
        completed += 1;
        // The cache's writes are the store's; the trigger reads the rest.
        const commands = deps.cache.apply(action.actionId, execution.commands);
        if ((await apply({ action, index, commands, logs: execution.logs })) === 'stop') {
          stopped = true;
          break;
        }
      }
      // Only a run that failed or stopped the request is recorded: its log event names the execution. A run that let
      // the request go on is named by nothing, and a row per login or token would be a write per request for 10 days.
      if (!failure && !stopped) return { executionId: undefined, completed };
      const executionId = await deps.bound.recordExecution(trigger, failure ? 'partial' : 'final', results).catch((error: unknown) => {
        deps.onRecordError?.(error);
        return undefined;
      });
      return { executionId, ...(failure ? { failure } : {}), completed };
    },
  };
}

export type TriggerRunner = ReturnType<typeof triggerRunner>;

/** An action failure's words for the tenant log and for the user-facing error (never the tenant's stack). */
export function failureDescription(failure: ActionFailure): string {
  return `The action '${failure.action.actionName}' failed: ${failure.error.message}`;
}

/** What the tenant log keeps of a trigger's run: its execution id, and the failing action's error and console output. */
export function actionLogDetails(run: TriggerRun, logs?: CapturedLogs): Record<string, unknown> {
  return {
    actions: {
      ...(run.executionId !== undefined ? { executions: [run.executionId] } : {}),
      ...(run.failure ? { error: { action_name: run.failure.action.actionName, kind: run.failure.error.kind, message: run.failure.error.message } } : {}),
      ...((logs ?? run.failure?.logs) ? { logs: (logs ?? run.failure?.logs)?.lines.map((line) => `${line.level}: ${line.message}`) } : {}),
    },
  };
}
