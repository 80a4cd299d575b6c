import type { ActionBindingRecord, ActionRecord, ActionVersionRecord } from '../../storage/repositories/actions.js';
import type { ActionBuildError, ActionDependency } from './action-build.js';
import type { SealedSecret } from './action-secrets.js';
import type { ActionTrigger } from './handlers.js';

/** A supported trigger as stored: the id and the trigger version the action was written for. */
export interface TriggerRef {
  id: ActionTrigger;
  version: string;
}

/** An action's draft as stored (`actions.data`): what the operator edits, and how its last build went. */
export interface ActionDraftData {
  supported_triggers: TriggerRef[];
  code: string;
  dependencies: ActionDependency[];
  runtime: string;
  secrets: SealedSecret[];
  status: 'built' | 'failed';
  errors: ActionBuildError[];
  built_at: string | null;
  /** The deployed version is this draft (true after a deploy until the next change). */
  all_changes_deployed: boolean;
}

/** A version as stored (`action_versions.data`): the draft it was made from, frozen. */
export interface ActionVersionData {
  supported_triggers: TriggerRef[];
  code: string;
  dependencies: ActionDependency[];
  runtime: string;
  secrets: SealedSecret[];
  built_at: string;
}

export type StoredAction = ActionRecord<ActionDraftData>;
export type StoredVersion = ActionVersionRecord<ActionVersionData>;

/** Names and update times only: a secret's value is never answered. */
const secretViews = (secrets: readonly SealedSecret[]) => secrets.map(({ name, updated_at }) => ({ name, updated_at }));

/** The action a version or a binding names (the platform's `ActionBase`). */
export function actionBaseView(action: StoredAction) {
  return {
    id: action.id,
    name: action.name,
    supported_triggers: action.data.supported_triggers,
    all_changes_deployed: action.data.all_changes_deployed,
    created_at: action.createdAt,
    updated_at: action.updatedAt,
  };
}

/** A version in the platform's shape; `deployed` when it is the one the triggers run. */
export function versionView(version: StoredVersion, deployedVersionId: string | null, action?: StoredAction) {
  return {
    id: version.id,
    action_id: version.actionId,
    code: version.data.code,
    dependencies: version.data.dependencies,
    deployed: version.id === deployedVersionId,
    runtime: version.data.runtime,
    secrets: secretViews(version.data.secrets),
    status: 'built' as const,
    number: version.number,
    built_at: version.data.built_at,
    created_at: version.createdAt,
    updated_at: version.updatedAt,
    supported_triggers: version.data.supported_triggers,
    ...(action ? { action: actionBaseView(action) } : {}),
  };
}

/**
 * An action in the platform's shape: its draft, and the deployed version when there is one. A draft whose build
 * failed also carries the build's `errors` (the platform shows them on versions; here the draft is where they are).
 */
export function actionView(action: StoredAction, deployed: StoredVersion | undefined) {
  const draft = action.data;
  return {
    ...actionBaseView(action),
    code: draft.code,
    dependencies: draft.dependencies,
    runtime: draft.runtime,
    status: draft.status,
    secrets: secretViews(draft.secrets),
    ...(draft.built_at !== null ? { built_at: draft.built_at } : {}),
    ...(draft.status === 'failed' ? { errors: draft.errors } : {}),
    ...(deployed ? { deployed_version: versionView(deployed, action.deployedVersionId) } : {}),
  };
}

export function bindingView(binding: ActionBindingRecord, action: StoredAction, deployed: StoredVersion | undefined) {
  return {
    id: binding.id,
    trigger_id: binding.triggerId,
    display_name: binding.displayName,
    action: { ...actionBaseView(action), ...(deployed ? { deployed_version: versionView(deployed, action.deployedVersionId) } : {}) },
    created_at: binding.createdAt,
    updated_at: binding.updatedAt,
  };
}
