import type { ManagementClient } from 'auth0';
import { TRIGGER_VERSIONS, type ActionSource, type ActionTriggerId } from './action-examples.js';

export interface ActionBinder {
  /** Creates and deploys the action once (by name) through the SDK; answers its id. */
  deploy(source: ActionSource): Promise<string>;
  /** Binds these actions to `trigger`, in this order, replacing what it ran; answers the bindings' ids. */
  bind(trigger: ActionTriggerId, sources: readonly ActionSource[]): Promise<string[]>;
  /** Empties the bindings of every trigger bound since the last call. */
  unbindAll(): Promise<void>;
}

/**
 * What a tenant's administrator does through the official Management SDK (npm auth0) to make a trigger run their
 * code: `actions.create`, `actions.deploy`, then `actions.triggers.bindings.updateMany`. An action is created once
 * per server and name, and bound again by its id.
 */
export function actionBinder(management: ManagementClient): ActionBinder {
  const ids = new Map<string, string>();
  const bound = new Set<ActionTriggerId>();

  async function deploy(source: ActionSource): Promise<string> {
    const known = ids.get(source.name);
    if (known !== undefined) return known;
    const created = await management.actions.create({
      name: source.name,
      supported_triggers: [{ id: source.trigger, version: TRIGGER_VERSIONS[source.trigger] }],
      code: source.code,
      ...(source.secrets ? { secrets: Object.entries(source.secrets).map(([name, value]) => ({ name, value })) } : {}),
    });
    if (created.status !== 'built') throw new Error(`the action ${source.name} did not build: ${JSON.stringify(created)}`);
    const id = String(created.id);
    await management.actions.deploy(id);
    ids.set(source.name, id);
    return id;
  }

  return {
    deploy,
    async bind(trigger, sources) {
      const actionIds: string[] = [];
      for (const source of sources) actionIds.push(await deploy(source));
      bound.add(trigger);
      const answer = await management.actions.triggers.bindings.updateMany(trigger, { bindings: actionIds.map((value) => ({ ref: { type: 'action_id', value } })) });
      return (answer.bindings ?? []).map((binding) => String(binding.id));
    },
    async unbindAll() {
      for (const trigger of bound) await management.actions.triggers.bindings.updateMany(trigger, { bindings: [] });
      bound.clear();
    },
  };
}
