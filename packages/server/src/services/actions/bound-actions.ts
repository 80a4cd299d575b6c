import type { ActionTrigger } from './handlers.js';

/**
 * What the triggers need of the Actions Management API's state: the deployed versions bound to a trigger, in the
 * binding order, ready to run, and a place to record what an execution did (`/api/v2/actions/executions/{id}`).
 * services/actions/stored-bound-actions.ts implements it over storage, with a cache that a write through this node
 * or another (the change bus) clears; the registry builds it beside the Actions service (`registry.actions.bound`);
 * the triggers (oauth/ and services/) only use this interface.
 */
export interface BoundAction {
  actionId: string;
  actionName: string;
  /** The deployed version's id: the runtime compiles a version once and keeps it by this id. */
  versionId: string;
  /** The version's runnable code: a CommonJS module, with its declared dependencies bundled in at deploy. */
  code: string;
  /** The version's secrets, opened (they are sealed at rest): the execution's `event.secrets`. */
  secrets: Record<string, string>;
}

/** One action's part of an execution, as `/api/v2/actions/executions/{id}` shows it. */
export interface ActionExecutionResult {
  action_name: string;
  error: { id: string; msg: string; url?: string } | null;
  started_at: string;
  ended_at: string;
}

export type ActionExecutionStatus = 'final' | 'partial' | 'canceled' | 'suspended' | 'unspecified' | 'pending';

export interface BoundActions {
  /** The actions bound to `trigger`, in order; an action with no deployed version is skipped. */
  bound(trigger: ActionTrigger): Promise<BoundAction[]>;
  /** Stores an execution of a trigger's actions; resolves to its id. */
  recordExecution(trigger: ActionTrigger, status: ActionExecutionStatus, results: ActionExecutionResult[]): Promise<string>;
}
