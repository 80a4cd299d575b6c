import { randomUUID } from 'node:crypto';
import type { Repositories } from '../../storage/repositories/index.js';
import type { PageWindow } from '../../storage/repositories/page.js';
import type { Storage } from '../../storage/storage.js';
import { ServiceError } from '../errors.js';
import { actionBindings } from './action-bindings.js';
import type { ActionBuilder } from './action-build.js';
import {
  builtDraft,
  checkedRuntime,
  checkedTrigger,
  noAction,
  refuseDuplicateDependencies,
  refuseModules,
  refuseUnbuilt,
  sameDependencies,
  versionDataOf,
  type ActionInput,
  type ActionPatch,
} from './action-drafts.js';
import type { ActionSecrets } from './action-secrets.js';
import { actionTestRun } from './action-test-run.js';
import { actionView, versionView, type ActionDraftData, type ActionVersionData, type StoredAction, type StoredVersion } from './action-views.js';
import type { ActionExecutionResult } from './bound-actions.js';
import type { ActionsRuntime } from './runtime.js';

export type { ActionInput, ActionPatch } from './action-drafts.js';

/** The platform keeps an action's 50 newest versions (and, here, always the deployed one). */
export const MAX_VERSIONS = 50;

export interface ActionsServiceDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
  secrets: ActionSecrets;
  builder: ActionBuilder;
  runtime: ActionsRuntime;
}

const noVersion = () => new ServiceError('not_found', 'That version does not exist.', 'inexistent_resource');

/**
 * The Actions of the Management API (`/api/v2/actions`): an action is a draft an operator edits, built at every
 * change (action-build.ts: `built`, or `failed` with its errors); a deploy freezes the draft into a new numbered
 * version that the triggers run; an older version can be deployed again (a rollback, which makes a new version
 * like it). Bindings, triggers and tests are in their own files; this composes them.
 */
export function actionsService(deps: ActionsServiceDeps) {
  const { storage, tenantId, secrets, builder } = deps;
  const at = () => deps.now().toISOString();

  async function stored(id: string, repos: Repositories = storage): Promise<StoredAction> {
    const found = await repos.actions.get<ActionDraftData>(tenantId, id);
    if (!found) throw noAction();
    return found;
  }

  async function deployedOf(actions: readonly StoredAction[]): Promise<Map<string, StoredVersion>> {
    const ids = actions.flatMap((action) => (action.deployedVersionId ? [action.deployedVersionId] : []));
    const versions = await storage.actions.getVersions<ActionVersionData>(tenantId, ids);
    return new Map(versions.map((version) => [version.id, version]));
  }

  async function view(action: StoredAction) {
    const deployed = action.deployedVersionId ? (await deployedOf([action])).get(action.deployedVersionId) : undefined;
    return actionView(action, deployed);
  }

  const uniqueName = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (storage.isUniqueViolation(error)) throw new ServiceError('conflict', 'An action with this name already exists.', 'conflict');
      throw error;
    }
  };

  /** An action bound to a trigger keeps supporting that trigger: its runs call that trigger's handler. */
  async function refuseTriggerChangeWhileBound(repos: Repositories, actionId: string, triggerId: string): Promise<void> {
    const bound = (await repos.actions.bindingsOfAction(tenantId, actionId)).find((binding) => binding.triggerId !== triggerId);
    if (bound) {
      throw new ServiceError('invalid', `The action is bound to the trigger ${bound.triggerId}; remove that binding before changing its trigger.`, 'invalid_operation');
    }
  }

  /**
   * Makes a new version from `source` (the draft, or an older version) and deploys it, in one exclusive section
   * per action so that two deploys get distinct numbers; the oldest versions past MAX_VERSIONS go.
   */
  async function deployNew(actionId: string, source: (repos: Repositories, action: StoredAction) => Promise<{ data: ActionVersionData; bundledCode: string; draft?: Partial<ActionDraftData> }>) {
    const result = await storage.exclusive(`actions:${tenantId}:${actionId}`, async (repos) => {
      const action = await stored(actionId, repos);
      const { data, bundledCode, draft } = await source(repos, action);
      const triggerId = data.supported_triggers[0]?.id ?? action.triggerId;
      await refuseTriggerChangeWhileBound(repos, actionId, triggerId);
      const now = at();
      const version: StoredVersion = { id: randomUUID(), actionId, number: (await repos.actions.lastVersionNumber(tenantId, actionId)) + 1, data, createdAt: now, updatedAt: now };
      await repos.actions.insertVersion(tenantId, { ...version, bundledCode });
      const nextDraft = { ...action.data, ...draft };
      await repos.actions.update(tenantId, actionId, { deployedVersionId: version.id, data: nextDraft, ...(draft?.supported_triggers ? { triggerId } : {}) });
      await repos.actions.pruneVersions(tenantId, actionId, MAX_VERSIONS, version.id);
      return { version, action: { ...action, data: nextDraft, deployedVersionId: version.id } };
    });
    return versionView(result.version, result.version.id, result.action);
  }

  const service = {
    async list(filter: { triggerId?: string; actionName?: string; deployed?: boolean; installed?: boolean }, window: PageWindow) {
      // Installed actions are the platform's marketplace integrations: Latchkey has none.
      if (filter.installed === true) return { items: [], total: 0 };
      const page = await storage.actions.list<ActionDraftData>(
        tenantId,
        { ...(filter.triggerId !== undefined ? { triggerId: filter.triggerId } : {}), ...(filter.actionName !== undefined ? { name: filter.actionName } : {}), ...(filter.deployed !== undefined ? { deployed: filter.deployed } : {}) },
        window,
      );
      const deployed = await deployedOf(page.items);
      return { items: page.items.map((action) => actionView(action, action.deployedVersionId ? deployed.get(action.deployedVersionId) : undefined)), total: page.total };
    },

    async get(id: string) {
      return view(await stored(id));
    },

    async create(input: ActionInput) {
      refuseModules(input.modules);
      const trigger = checkedTrigger(input.supported_triggers);
      const runtime = checkedRuntime(input.runtime);
      const dependencies = input.dependencies ?? [];
      refuseDuplicateDependencies(dependencies);
      const now = at();
      const sealed = secrets.merge([], input.secrets, now);
      const code = input.code ?? '';
      const { bundledCode, ...build } = builtDraft(await builder.build(code, dependencies), now);
      const action: StoredAction = {
        id: randomUUID(),
        name: input.name,
        triggerId: trigger.id,
        deployedVersionId: null,
        data: { supported_triggers: [trigger], code, dependencies, runtime, secrets: sealed, ...build, all_changes_deployed: false },
        createdAt: now,
        updatedAt: now,
      };
      await uniqueName(() => storage.actions.insert(tenantId, { ...action, bundledCode }));
      if (input.deploy && build.status === 'built') await service.deploy(action.id);
      return view(await stored(action.id));
    },

    async update(id: string, patch: ActionPatch) {
      refuseModules(patch.modules);
      const current = await stored(id);
      const draft = current.data;
      const trigger = patch.supported_triggers ? checkedTrigger(patch.supported_triggers) : draft.supported_triggers[0];
      if (trigger && trigger.id !== current.triggerId) await refuseTriggerChangeWhileBound(storage, id, trigger.id);
      const dependencies = patch.dependencies ?? draft.dependencies;
      refuseDuplicateDependencies(dependencies);
      const now = at();
      const code = patch.code ?? draft.code;
      const next: ActionDraftData = {
        ...draft,
        supported_triggers: trigger ? [trigger] : draft.supported_triggers,
        code,
        dependencies,
        runtime: patch.runtime !== undefined ? checkedRuntime(patch.runtime) : draft.runtime,
        secrets: secrets.merge(draft.secrets, patch.secrets, now),
      };
      // Only what goes into a version makes the draft differ from the deployed version (a new name does not).
      const versioned = patch.code !== undefined || patch.dependencies !== undefined || patch.runtime !== undefined || patch.secrets !== undefined || patch.supported_triggers !== undefined;
      if (versioned) next.all_changes_deployed = false;
      let bundledCode: string | null | undefined;
      if (code !== draft.code || !sameDependencies(dependencies, draft.dependencies)) {
        const built = builtDraft(await builder.build(code, dependencies), now);
        ({ bundledCode } = built);
        Object.assign(next, { status: built.status, errors: built.errors, built_at: built.built_at });
      }
      await uniqueName(() =>
        storage.actions.update(tenantId, id, {
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(trigger ? { triggerId: trigger.id } : {}),
          data: next,
          ...(bundledCode !== undefined ? { bundledCode } : {}),
          updatedAt: now,
        }),
      );
      return view(await stored(id));
    },

    /** Deletes an action and its versions; one bound to a trigger only with `force`, which removes its bindings too. */
    async remove(id: string, force: boolean) {
      await stored(id);
      const bindings = await storage.actions.bindingsOfAction(tenantId, id);
      if (bindings.length > 0 && !force) {
        const triggers = [...new Set(bindings.map((binding) => binding.triggerId))].join(', ');
        throw new ServiceError('invalid', `The action is bound to the trigger ${triggers}: remove it from the trigger's bindings first, or delete it with force=true.`, 'invalid_operation');
      }
      const removed = await storage.transaction((repos) => repos.actions.remove(tenantId, id));
      if (!removed) throw noAction();
      deps.runtime.retire(id);
      tests.retire(id);
    },

    /** Deploys the draft as a new version (the draft must have built). */
    async deploy(id: string) {
      return deployNew(id, async (repos, action) => {
        refuseUnbuilt(action);
        const bundledCode = await repos.actions.draftBundle(tenantId, id);
        if (typeof bundledCode !== 'string') throw new Error(`action ${id} is built but has no bundle`);
        return { data: versionDataOf(action.data, action.data.built_at ?? at()), bundledCode, draft: { all_changes_deployed: true } };
      });
    },

    async versions(actionId: string, window: PageWindow) {
      const action = await stored(actionId);
      const page = await storage.actions.listVersions<ActionVersionData>(tenantId, actionId, window);
      return { items: page.items.map((version) => versionView(version, action.deployedVersionId, action)), total: page.total };
    },

    async version(actionId: string, versionId: string) {
      const action = await stored(actionId);
      const version = await storage.actions.getVersion<ActionVersionData>(tenantId, actionId, versionId);
      if (!version) throw noVersion();
      return versionView(version, action.deployedVersionId, action);
    },

    /**
     * Deploys an earlier version again (a rollback): a new version like it is made and deployed. With
     * `updateDraft`, the draft becomes that version too (the platform's `update_draft`).
     */
    async deployVersion(actionId: string, versionId: string, options: { updateDraft?: boolean }) {
      return deployNew(actionId, async (repos) => {
        const earlier = await repos.actions.getVersion<ActionVersionData>(tenantId, actionId, versionId);
        const bundledCode = earlier && (await repos.actions.versionBundle(tenantId, versionId));
        if (!earlier || bundledCode === undefined) throw noVersion();
        const data = versionDataOf(earlier.data, earlier.data.built_at);
        if (!options.updateDraft) return { data, bundledCode, draft: { all_changes_deployed: false } };
        await repos.actions.update(tenantId, actionId, { bundledCode, updatedAt: at() });
        return { data, bundledCode, draft: { ...data, status: 'built', errors: [], all_changes_deployed: true } };
      });
    },

    /** A recorded execution (stored-bound-actions.ts), until its retention is over. */
    async execution(id: string) {
      const found = await storage.actionExecutions.get<ActionExecutionResult[]>(tenantId, id, at());
      if (!found) throw new ServiceError('not_found', 'That execution does not exist.', 'inexistent_resource');
      const results = found.results.map(({ error, ...result }) => ({ ...result, ...(error ? { error } : {}) }));
      return { id: found.id, trigger_id: found.triggerId, status: found.status, results, created_at: found.createdAt, updated_at: found.updatedAt };
    },
  };

  const tests = actionTestRun({ storage, tenantId, secrets, runtime: deps.runtime, stored });
  return { ...service, ...actionBindings({ storage, tenantId, now: deps.now }), test: tests.test };
}

export type ActionsService = ReturnType<typeof actionsService>;
