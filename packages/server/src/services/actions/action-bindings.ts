import { randomUUID } from 'node:crypto';
import type { ActionBindingRecord } from '../../storage/repositories/actions.js';
import type { Repositories } from '../../storage/repositories/index.js';
import type { PageWindow } from '../../storage/repositories/page.js';
import type { Storage } from '../../storage/storage.js';
import { ServiceError } from '../errors.js';
import { triggerViews } from './trigger-catalogue.js';
import { bindingView, type ActionDraftData, type ActionVersionData, type StoredAction } from './action-views.js';
import type { ActionTrigger } from './handlers.js';

/** One entry of `PATCH /api/v2/actions/triggers/{triggerId}/bindings`. */
export interface BindingInput {
  ref: { type?: 'action_id' | 'action_name' | 'binding_id'; value?: string };
  display_name?: string;
  secrets?: unknown[];
}

/** The platform runs at most 20 actions per trigger. */
export const MAX_BINDINGS = 20;

const refused = (message: string) => new ServiceError('invalid', message, 'invalid_body');

/**
 * What each trigger runs: an ordered list of deployed actions that support it. A PATCH replaces a trigger's
 * whole list (new binding ids, as the platform gives); actions are named by id, by name, or by a binding the
 * trigger has now.
 */
export function actionBindings(deps: { storage: Storage; tenantId: string; now: () => Date }) {
  const { storage, tenantId } = deps;

  async function views(bindings: readonly ActionBindingRecord[]) {
    const actions = new Map((await storage.actions.getMany<ActionDraftData>(tenantId, bindings.map((binding) => binding.actionId))).map((action) => [action.id, action]));
    const versionIds = [...actions.values()].flatMap((action) => (action.deployedVersionId ? [action.deployedVersionId] : []));
    const versions = new Map((await storage.actions.getVersions<ActionVersionData>(tenantId, versionIds)).map((version) => [version.id, version]));
    return bindings.flatMap((binding) => {
      const action = actions.get(binding.actionId);
      return action ? [bindingView(binding, action, action.deployedVersionId ? versions.get(action.deployedVersionId) : undefined)] : [];
    });
  }

  /** The action an entry names, checked: it exists, is deployed, and its deployed version supports the trigger. */
  async function boundAction(repos: Repositories, triggerId: ActionTrigger, entry: BindingInput, current: readonly ActionBindingRecord[]): Promise<StoredAction> {
    const { type = 'action_id', value } = entry.ref;
    if (value === undefined || value === '') throw refused('A binding names its action: ref.value is missing.');
    let action: StoredAction | undefined;
    if (type === 'action_name') action = await repos.actions.getByName<ActionDraftData>(tenantId, value);
    else {
      const actionId = type === 'binding_id' ? current.find((binding) => binding.id === value)?.actionId : value;
      if (type === 'binding_id' && actionId === undefined) throw refused(`The trigger ${triggerId} has no binding ${value}.`);
      action = actionId === undefined ? undefined : await repos.actions.get<ActionDraftData>(tenantId, actionId);
    }
    if (!action) throw refused(`The action ${value} does not exist.`);
    if (!action.deployedVersionId) throw refused(`The action ${action.name} has not been deployed: deploy it before binding it to a trigger.`);
    const [deployed] = await repos.actions.getVersions<ActionVersionData>(tenantId, [action.deployedVersionId]);
    const supported = deployed?.data.supported_triggers[0]?.id;
    if (supported !== triggerId) throw refused(`The action ${action.name} supports the trigger ${supported ?? '(none)'}, not ${triggerId}.`);
    return action;
  }

  return {
    triggers() {
      return triggerViews();
    },

    /** A trigger's bindings in the order they run (a trigger has at most MAX_BINDINGS, so pages are cut here). */
    async bindings(triggerId: ActionTrigger, window: PageWindow) {
      const all = await storage.actions.bindings(tenantId, triggerId);
      return { items: await views(all.slice(window.offset, window.offset + window.limit)), total: all.length };
    },

    /** Replaces a trigger's bindings, checked and written in one transaction (an action deleted meanwhile cannot slip in). */
    async updateBindings(triggerId: ActionTrigger, entries: readonly BindingInput[]) {
      if (entries.length > MAX_BINDINGS) throw refused(`A trigger runs at most ${MAX_BINDINGS} actions.`);
      const now = deps.now().toISOString();
      const next = await storage.transaction(async (repos) => {
        const current = await repos.actions.bindings(tenantId, triggerId);
        const bindings: Omit<ActionBindingRecord, 'triggerId'>[] = [];
        for (const entry of entries) {
          if (entry.secrets !== undefined && entry.secrets.length > 0) throw refused('Binding secrets belong to the platform\u2019s integrations; set secrets on the action instead.');
          const action = await boundAction(repos, triggerId, entry, current);
          if (bindings.some((binding) => binding.actionId === action.id)) throw refused(`The action ${action.name} is listed twice.`);
          bindings.push({ id: randomUUID(), actionId: action.id, displayName: entry.display_name ?? action.name, createdAt: now, updatedAt: now });
        }
        await repos.actions.replaceBindings(tenantId, triggerId, bindings);
        return bindings;
      });
      return views(next.map((binding) => ({ ...binding, triggerId })));
    },
  };
}
