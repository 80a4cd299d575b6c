import { ServiceError } from '../errors.js';
import type { ActionBuild, ActionDependency } from './action-build.js';
import { currentVersionOf, DEFAULT_RUNTIME, isActionTrigger, RUNTIME_PATTERN } from './trigger-catalogue.js';
import type { ActionDraftData, StoredAction, StoredVersion, TriggerRef } from './action-views.js';
import type { SecretInput } from './action-secrets.js';

/** An action as the Management API creates it (validated for shape by the route's schema). */
export interface ActionInput {
  name: string;
  supported_triggers: { id: string; version?: string }[];
  code?: string;
  dependencies?: ActionDependency[];
  runtime?: string;
  secrets?: SecretInput[];
  modules?: unknown[];
  /** Deploy right after creating (when the draft built). */
  deploy?: boolean;
}

export type ActionPatch = Partial<Omit<ActionInput, 'deploy'>>;

export const noAction = () => new ServiceError('not_found', 'That action does not exist.', 'inexistent_resource');

/** The one supported trigger (the platform lets an action target one trigger at a time), at its given or current version. */
export function checkedTrigger(triggers: readonly { id: string; version?: string }[]): TriggerRef {
  const [trigger, ...others] = triggers;
  if (!trigger || others.length > 0) throw new ServiceError('invalid', 'An action supports exactly one trigger.', 'invalid_body');
  if (!isActionTrigger(trigger.id)) throw new ServiceError('invalid', `The trigger ${trigger.id} is not supported.`, 'invalid_body');
  return { id: trigger.id, version: trigger.version ?? currentVersionOf(trigger.id) };
}

export function checkedRuntime(runtime: string | undefined): string {
  if (runtime === undefined) return DEFAULT_RUNTIME;
  if (!RUNTIME_PATTERN.test(runtime)) throw new ServiceError('invalid', `The runtime ${runtime} is not supported (e.g. node22).`, 'invalid_body');
  return runtime;
}

/** Action modules (shared code published apart) are not part of Latchkey: an action that names some is refused. */
export function refuseModules(modules: readonly unknown[] | undefined): void {
  if (modules !== undefined && modules.length > 0) throw new ServiceError('invalid', 'Action modules are not supported; declare npm dependencies instead.', 'invalid_body');
}

/** Two dependency lists that build the same. */
export function sameDependencies(a: readonly ActionDependency[], b: readonly ActionDependency[]): boolean {
  return a.length === b.length && a.every((dependency, i) => dependency.name === b[i]?.name && dependency.version === b[i]?.version);
}

export function refuseDuplicateDependencies(dependencies: readonly ActionDependency[]): void {
  const names = new Set<string>();
  for (const { name } of dependencies) {
    if (names.has(name)) throw new ServiceError('invalid', `The dependency ${name} is listed twice.`, 'invalid_body');
    names.add(name);
  }
}

/** The draft's build outcome as stored: a failed build keeps no runnable code. */
export function builtDraft(build: ActionBuild, at: string): Pick<ActionDraftData, 'status' | 'errors' | 'built_at'> & { bundledCode: string | null } {
  return build.status === 'built'
    ? { status: 'built', errors: [], built_at: at, bundledCode: build.code }
    : { status: 'failed', errors: build.errors, built_at: null, bundledCode: null };
}

/** A draft may be deployed once it built (a failed build is answered with its errors). */
export function refuseUnbuilt(action: StoredAction): void {
  if (action.data.status === 'built') return;
  const reasons = action.data.errors.map((error) => error.msg).join(' ');
  throw new ServiceError('invalid', `The action's draft failed to build and cannot be deployed or tested: ${reasons}`, 'invalid_operation');
}

/** The frozen copy of a draft that a deploy makes. */
export function versionDataOf(draft: ActionDraftData | StoredVersion['data'], builtAt: string): StoredVersion['data'] {
  return {
    supported_triggers: draft.supported_triggers,
    code: draft.code,
    dependencies: draft.dependencies,
    runtime: draft.runtime,
    secrets: draft.secrets,
    built_at: builtAt,
  };
}
