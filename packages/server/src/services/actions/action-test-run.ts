import { createHash } from 'node:crypto';
import type { Storage } from '../../storage/storage.js';
import { refuseUnbuilt } from './action-drafts.js';
import type { ActionSecrets } from './action-secrets.js';
import { handlerOf } from './trigger-catalogue.js';
import type { StoredAction } from './action-views.js';
import type { ActionError } from './execution-result.js';
import type { ActionsRuntime } from './runtime.js';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The name an error carries in the answer: the tenant's own for a throw, else what stopped the run. */
function errorName(error: ActionError): string {
  if (error.kind === 'thrown') return error.name ?? 'Error';
  return { compile_error: 'SyntaxError', missing_handler: 'TypeError', timeout: 'TimeoutError', memory_limit: 'RangeError', aborted: 'Error', invalid_result: 'Error' }[error.kind];
}

/**
 * `POST /api/v2/actions/actions/{id}/test`: runs the draft (not the deployed version) once, with the payload as
 * the event of the action's trigger, and answers in the platform's shape, `{payload: {...}}`: the `api` calls the
 * code made (`commands`, which the triggers would apply), its console output (`logs`), timings (`stats`) and, when
 * it failed, the `error` with the tenant's name, message and stack. The event's `secrets` are the draft's, and
 * any the payload brings override them (to try other values). Drafts run under their own key in the runtime, so a
 * test never evicts the deployed version a login is running.
 */
export function actionTestRun(deps: {
  storage: Storage;
  tenantId: string;
  secrets: ActionSecrets;
  runtime: ActionsRuntime;
  stored: (id: string) => Promise<StoredAction>;
}) {
  const keyOf = (actionId: string) => `test:${actionId}`;

  return {
    async test(id: string, payload: Record<string, unknown>) {
      const started = performance.now();
      const action = await deps.stored(id);
      refuseUnbuilt(action);
      const code = await deps.storage.actions.draftBundle(deps.tenantId, id);
      if (typeof code !== 'string') throw new Error(`action ${id} is built but has no bundle`);
      const event = { ...payload, secrets: { ...deps.secrets.open(action.data.secrets), ...(isRecord(payload.secrets) ? payload.secrets : {}) } };
      // Content-addressed: testing the same draft again runs warm; a changed draft compiles anew.
      const versionId = createHash('sha256').update(code).digest('base64url');
      const trigger = action.data.supported_triggers[0]?.id;
      if (trigger === undefined) throw new Error(`action ${id} has no supported trigger`);
      const run = await deps.runtime.execute({ actionId: keyOf(id), versionId, code }, handlerOf(trigger), event);
      const logs = run.logs.lines.map((line) => line.message).join('\n') + (run.logs.truncated ? '\n[output truncated]' : '');
      return {
        payload: {
          ...(run.ok
            ? { commands: run.commands }
            : { error: { name: errorName(run.error), message: run.error.message, ...(run.error.stack !== undefined ? { stack: run.error.stack } : {}) } }),
          logs,
          stats: { action_duration_ms: Math.round(run.durationMs), total_request_duration_ms: Math.round(performance.now() - started) },
        },
      };
    },

    /** Disposes a deleted action's test sandbox. */
    retire(actionId: string) {
      deps.runtime.retire(keyOf(actionId));
    },
  };
}
