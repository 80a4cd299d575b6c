import { randomUUID } from 'node:crypto';
import type { ChangedTable } from '../../storage/repositories/index.js';
import type { Storage } from '../../storage/storage.js';
import type { ActionSecrets } from './action-secrets.js';
import type { ActionVersionData } from './action-views.js';
import type { ActionExecutionResult, ActionExecutionStatus, BoundAction, BoundActions } from './bound-actions.js';
import type { ActionTrigger } from './handlers.js';

/** The platform keeps executions 10 days. */
export const EXECUTION_RETENTION_DAYS = 10;

const BOUND_TABLES: ReadonlySet<ChangedTable> = new Set(['actions', 'action_bindings']);

export interface StoredBoundActionsDeps {
  storage: Storage;
  tenantId: string;
  secrets: ActionSecrets;
  now: () => Date;
  /**
   * How long a trigger's bound actions may be kept (LATCHKEY_CONFIG_CACHE_SECONDS): a write through this node or
   * another one that the change bus reports clears them at once; this bounds how stale they get without a bus.
   * 0 reads the database at every run.
   */
  ttlMs: number;
  nowMs?: () => number;
}

/**
 * BoundActions over storage: each trigger's deployed versions in binding order, their secrets opened and their
 * code ready, read in one statement (repositories/actions.ts `bound`) and kept, so that a login costs no database
 * read while nothing changed. Writes of actions and bindings clear the cache (storage.onChange, which the change
 * bus also fires for other nodes' writes, and storage fires again once a transaction committed); a read is cached
 * from the moment it starts, so one on its way when such a write happens is dropped with the rest.
 */
export function storedBoundActions(deps: StoredBoundActionsDeps): BoundActions {
  const { storage, tenantId } = deps;
  const nowMs = deps.nowMs ?? Date.now;
  const cache = new Map<ActionTrigger, { actions: Promise<BoundAction[]>; expires: number }>();
  // The read is cached the moment it starts, so a write while it is on its way clears it too.
  storage.onChange((table) => {
    if (BOUND_TABLES.has(table)) cache.clear();
  });

  async function load(trigger: ActionTrigger): Promise<BoundAction[]> {
    const rows = await storage.actions.bound<ActionVersionData>(tenantId, trigger);
    return rows.map((row) => ({
      actionId: row.actionId,
      actionName: row.actionName,
      versionId: row.versionId,
      code: row.bundledCode,
      secrets: deps.secrets.open(row.data.secrets),
    }));
  }

  return {
    async bound(trigger) {
      if (deps.ttlMs <= 0) return load(trigger);
      const hit = cache.get(trigger);
      if (hit && hit.expires > nowMs()) return hit.actions;
      const actions = load(trigger);
      // Shared by concurrent runs while it loads; a failed read is not kept.
      cache.set(trigger, { actions, expires: nowMs() + deps.ttlMs });
      actions.catch(() => {
        if (cache.get(trigger)?.actions === actions) cache.delete(trigger);
      });
      return actions;
    },

    async recordExecution(trigger: ActionTrigger, status: ActionExecutionStatus, results: ActionExecutionResult[]) {
      const id = randomUUID();
      const now = deps.now();
      const at = now.toISOString();
      const expiresAt = new Date(now.getTime() + EXECUTION_RETENTION_DAYS * 86_400_000).toISOString();
      await storage.actionExecutions.insert(tenantId, { id, triggerId: trigger, status, results, createdAt: at, updatedAt: at, expiresAt });
      return id;
    },
  };
}
