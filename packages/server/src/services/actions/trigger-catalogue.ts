import { ACTION_HANDLERS, type ActionHandlerName, type ActionTrigger } from './handlers.js';

/** The triggers Latchkey runs actions at, each at the platform's current version, and the handler a run calls. */
const TRIGGERS: Record<ActionTrigger, { version: string; handler: ActionHandlerName }> = {
  'post-login': { version: 'v3', handler: 'onExecutePostLogin' },
  'credentials-exchange': { version: 'v2', handler: 'onExecuteCredentialsExchange' },
  'pre-user-registration': { version: 'v2', handler: 'onExecutePreUserRegistration' },
  'post-user-registration': { version: 'v2', handler: 'onExecutePostUserRegistration' },
  'post-change-password': { version: 'v2', handler: 'onExecutePostChangePassword' },
  'send-phone-message': { version: 'v2', handler: 'onExecuteSendPhoneMessage' },
};

export const ACTION_TRIGGER_IDS = Object.keys(TRIGGERS) as readonly ActionTrigger[];

/**
 * The runtimes the triggers list. Every action runs in the same sandbox (V8 through isolated-vm), whatever its
 * `runtime` says: the value is kept for the platform's clients, which send and compare it.
 */
export const ACTION_RUNTIMES = ['node18-actions', 'node22'] as const;
export const DEFAULT_RUNTIME = 'node22';

/** Runtimes the platform has had (`node12`, `node16`, `node18`, `node18-actions`, `node22`, …): accepted as given. */
export const RUNTIME_PATTERN = /^node\d{1,3}(-actions)?$/;

export function isActionTrigger(id: string): id is ActionTrigger {
  return Object.hasOwn(TRIGGERS, id);
}

export function currentVersionOf(trigger: ActionTrigger): string {
  return TRIGGERS[trigger].version;
}

/** The handler a run of an action at `trigger` calls (post-login's first call; `onContinuePostLogin` follows a redirect). */
export function handlerOf(trigger: ActionTrigger): ActionHandlerName {
  const handler = TRIGGERS[trigger].handler;
  // A compile-time table, checked against the handlers' own: a handler that serves another trigger is a bug here.
  if (ACTION_HANDLERS[handler] !== trigger) throw new Error(`${handler} does not serve ${trigger}`);
  return handler;
}

/** `GET /api/v2/actions/triggers` in the platform's shape. */
export function triggerViews() {
  return ACTION_TRIGGER_IDS.map((id) => ({
    id,
    version: TRIGGERS[id].version,
    status: 'CURRENT',
    runtimes: [...ACTION_RUNTIMES],
    default_runtime: DEFAULT_RUNTIME,
    compatible_triggers: [] as { id: string; version: string }[],
    binding_policy: 'trigger-bound',
  }));
}
