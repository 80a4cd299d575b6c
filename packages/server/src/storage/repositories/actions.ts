import type { Kysely, Selectable } from 'kysely';
import type { ActionBindingsTable, ActionVersionsTable, ActionsTable, Database } from '../schema.js';
import { fromJson, toJson } from './json.js';
import type { PageOf, PageWindow } from './page.js';

/** An action and its draft (`data`, the service's shape); the draft's build is read apart (`bundledCode`). */
export interface ActionRecord<D> {
  id: string;
  name: string;
  /** The draft's supported trigger. */
  triggerId: string;
  /** The version the triggers run; null until the first deploy. */
  deployedVersionId: string | null;
  data: D;
  createdAt: string;
  updatedAt: string;
}

export interface ActionVersionRecord<D> {
  id: string;
  actionId: string;
  number: number;
  data: D;
  createdAt: string;
  updatedAt: string;
}

export interface ActionBindingRecord {
  id: string;
  triggerId: string;
  actionId: string;
  displayName: string;
  createdAt: string;
  updatedAt: string;
}

/** A trigger's bound action with its deployed version, as the triggers run it. */
export interface BoundVersionRecord<D> {
  actionId: string;
  actionName: string;
  versionId: string;
  /** The version's data (its sealed secrets among it). */
  data: D;
  bundledCode: string;
}

export interface ActionListFilter {
  triggerId?: string;
  name?: string;
  /** true: only deployed actions; false: only actions never deployed. */
  deployed?: boolean;
}

export interface ActionChange<D> {
  name?: string;
  triggerId?: string;
  data?: D;
  /** The draft's build; null when it failed. */
  bundledCode?: string | null;
  deployedVersionId?: string;
  updatedAt?: string;
}

/** The names the storage announces writes under (storage.onChange, the change bus). */
export type ActionsChangedTable = 'actions' | 'action_bindings';

const toAction = <D>(row: Omit<Selectable<ActionsTable>, 'bundled_code' | 'tenant_id'>): ActionRecord<D> => ({
  id: row.id,
  name: row.name,
  triggerId: row.trigger_id,
  deployedVersionId: row.deployed_version_id,
  data: fromJson<D>(row.data),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toVersion = <D>(row: Omit<Selectable<ActionVersionsTable>, 'bundled_code' | 'tenant_id'>): ActionVersionRecord<D> => ({
  id: row.id,
  actionId: row.action_id,
  number: Number(row.number),
  data: fromJson<D>(row.data),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toBinding = (row: Selectable<ActionBindingsTable>): ActionBindingRecord => ({
  id: row.id,
  triggerId: row.trigger_id,
  actionId: row.action_id,
  displayName: row.display_name,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const ACTION_COLUMNS = ['id', 'name', 'trigger_id', 'deployed_version_id', 'data', 'created_at', 'updated_at'] as const;
const VERSION_COLUMNS = ['id', 'action_id', 'number', 'data', 'created_at', 'updated_at'] as const;

/**
 * Actions, their versions and the triggers' bindings (0017-actions). Writes of actions and of bindings are
 * announced (`changed`): the bound actions the triggers run are cached from them. Version inserts are not: a new
 * version matters only once an action's `deployed_version_id` names it, and that write is announced. Lists are
 * in creation order (actions), newest first (versions) and in binding order (bindings).
 */
export function actionsRepository(db: Kysely<Database>, changed: (table: ActionsChangedTable) => void = () => undefined) {
  const action = (tenantId: string, id: string) => db.selectFrom('actions').where('tenant_id', '=', tenantId).where('id', '=', id);

  return {
    async insert<D>(tenantId: string, record: ActionRecord<D> & { bundledCode: string | null }): Promise<void> {
      await db
        .insertInto('actions')
        .values({
          tenant_id: tenantId,
          id: record.id,
          name: record.name,
          trigger_id: record.triggerId,
          deployed_version_id: record.deployedVersionId,
          data: toJson(record.data),
          bundled_code: record.bundledCode,
          created_at: record.createdAt,
          updated_at: record.updatedAt,
        })
        .execute();
      changed('actions');
    },

    async get<D>(tenantId: string, id: string): Promise<ActionRecord<D> | undefined> {
      const row = await action(tenantId, id).select(ACTION_COLUMNS).executeTakeFirst();
      return row && toAction<D>(row);
    },

    async getByName<D>(tenantId: string, name: string): Promise<ActionRecord<D> | undefined> {
      const row = await db.selectFrom('actions').select(ACTION_COLUMNS).where('tenant_id', '=', tenantId).where('name', '=', name).executeTakeFirst();
      return row && toAction<D>(row);
    },

    /** The actions of these ids that exist, in no particular order. */
    async getMany<D>(tenantId: string, ids: readonly string[]): Promise<ActionRecord<D>[]> {
      if (ids.length === 0) return [];
      const rows = await db.selectFrom('actions').select(ACTION_COLUMNS).where('tenant_id', '=', tenantId).where('id', 'in', [...ids]).execute();
      return rows.map((row) => toAction<D>(row));
    },

    /** The draft's build: undefined when there is no such action, null when the build failed. */
    async draftBundle(tenantId: string, id: string): Promise<string | null | undefined> {
      const row = await action(tenantId, id).select('bundled_code').executeTakeFirst();
      return row?.bundled_code;
    },

    async list<D>(tenantId: string, filter: ActionListFilter, window: PageWindow): Promise<PageOf<ActionRecord<D>>> {
      let query = db.selectFrom('actions').where('tenant_id', '=', tenantId);
      if (filter.triggerId !== undefined) query = query.where('trigger_id', '=', filter.triggerId);
      if (filter.name !== undefined) query = query.where('name', '=', filter.name);
      if (filter.deployed !== undefined) query = query.where('deployed_version_id', filter.deployed ? 'is not' : 'is', null);
      const [rows, total] = await Promise.all([
        query.select(ACTION_COLUMNS).orderBy('created_at').orderBy('id').offset(window.offset).limit(window.limit).execute(),
        query.select(db.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map((row) => toAction<D>(row)), total: Number(total.n) };
    },

    /** False when there is no such action. */
    async update<D>(tenantId: string, id: string, change: ActionChange<D>): Promise<boolean> {
      const result = await db
        .updateTable('actions')
        .set({
          ...(change.name !== undefined ? { name: change.name } : {}),
          ...(change.triggerId !== undefined ? { trigger_id: change.triggerId } : {}),
          ...(change.data !== undefined ? { data: toJson(change.data) } : {}),
          ...(change.bundledCode !== undefined ? { bundled_code: change.bundledCode } : {}),
          ...(change.deployedVersionId !== undefined ? { deployed_version_id: change.deployedVersionId } : {}),
          ...(change.updatedAt !== undefined ? { updated_at: change.updatedAt } : {}),
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      changed('actions');
      return result.numUpdatedRows > 0n;
    },

    /**
     * Deletes an action with its versions and bindings; false when there was none. The bindings left on a trigger
     * keep their positions: only their order counts, gaps do not.
     */
    async remove(tenantId: string, id: string): Promise<boolean> {
      const unbound = await db.deleteFrom('action_bindings').where('tenant_id', '=', tenantId).where('action_id', '=', id).executeTakeFirst();
      await db.deleteFrom('action_versions').where('tenant_id', '=', tenantId).where('action_id', '=', id).execute();
      const result = await db.deleteFrom('actions').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      changed('actions');
      if (unbound.numDeletedRows > 0n) changed('action_bindings');
      return result.numDeletedRows > 0n;
    },

    async insertVersion<D>(tenantId: string, version: ActionVersionRecord<D> & { bundledCode: string }): Promise<void> {
      await db
        .insertInto('action_versions')
        .values({
          tenant_id: tenantId,
          id: version.id,
          action_id: version.actionId,
          number: version.number,
          data: toJson(version.data),
          bundled_code: version.bundledCode,
          created_at: version.createdAt,
          updated_at: version.updatedAt,
        })
        .execute();
    },

    async getVersion<D>(tenantId: string, actionId: string, id: string): Promise<ActionVersionRecord<D> | undefined> {
      const row = await db.selectFrom('action_versions').select(VERSION_COLUMNS).where('tenant_id', '=', tenantId).where('action_id', '=', actionId).where('id', '=', id).executeTakeFirst();
      return row && toVersion<D>(row);
    },

    /** The versions of these ids that exist, in no particular order. */
    async getVersions<D>(tenantId: string, ids: readonly string[]): Promise<ActionVersionRecord<D>[]> {
      if (ids.length === 0) return [];
      const rows = await db.selectFrom('action_versions').select(VERSION_COLUMNS).where('tenant_id', '=', tenantId).where('id', 'in', [...ids]).execute();
      return rows.map((row) => toVersion<D>(row));
    },

    async versionBundle(tenantId: string, id: string): Promise<string | undefined> {
      const row = await db.selectFrom('action_versions').select('bundled_code').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return row?.bundled_code;
    },

    /** An action's versions, the newest first. */
    async listVersions<D>(tenantId: string, actionId: string, window: PageWindow): Promise<PageOf<ActionVersionRecord<D>>> {
      const query = db.selectFrom('action_versions').where('tenant_id', '=', tenantId).where('action_id', '=', actionId);
      const [rows, total] = await Promise.all([
        query.select(VERSION_COLUMNS).orderBy('number', 'desc').offset(window.offset).limit(window.limit).execute(),
        query.select(db.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map((row) => toVersion<D>(row)), total: Number(total.n) };
    },

    /** The highest version number of an action; 0 before its first deploy. */
    async lastVersionNumber(tenantId: string, actionId: string): Promise<number> {
      const row = await db
        .selectFrom('action_versions')
        .select((eb) => eb.fn.max('number').as('last'))
        .where('tenant_id', '=', tenantId)
        .where('action_id', '=', actionId)
        .executeTakeFirst();
      return Number(row?.last ?? 0);
    },

    /** Deletes the versions older than the newest `keep`, except `exceptId` (the deployed one); returns how many went. */
    async pruneVersions(tenantId: string, actionId: string, keep: number, exceptId: string): Promise<number> {
      const last = await this.lastVersionNumber(tenantId, actionId);
      const result = await db
        .deleteFrom('action_versions')
        .where('tenant_id', '=', tenantId)
        .where('action_id', '=', actionId)
        .where('number', '<=', last - keep)
        .where('id', '!=', exceptId)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** A trigger's bindings in the order they run. */
    async bindings(tenantId: string, triggerId: string): Promise<ActionBindingRecord[]> {
      const rows = await db.selectFrom('action_bindings').selectAll().where('tenant_id', '=', tenantId).where('trigger_id', '=', triggerId).orderBy('position').execute();
      return rows.map(toBinding);
    },

    /** The bindings of one action, on any trigger. */
    async bindingsOfAction(tenantId: string, actionId: string): Promise<ActionBindingRecord[]> {
      const rows = await db.selectFrom('action_bindings').selectAll().where('tenant_id', '=', tenantId).where('action_id', '=', actionId).orderBy('trigger_id').orderBy('position').execute();
      return rows.map(toBinding);
    },

    /** Replaces a trigger's bindings with these, in this order. */
    async replaceBindings(tenantId: string, triggerId: string, bindings: readonly Omit<ActionBindingRecord, 'triggerId'>[]): Promise<void> {
      await db.deleteFrom('action_bindings').where('tenant_id', '=', tenantId).where('trigger_id', '=', triggerId).execute();
      if (bindings.length > 0) {
        await db
          .insertInto('action_bindings')
          .values(
            bindings.map((binding, position) => ({
              tenant_id: tenantId,
              trigger_id: triggerId,
              position,
              id: binding.id,
              action_id: binding.actionId,
              display_name: binding.displayName,
              created_at: binding.createdAt,
              updated_at: binding.updatedAt,
            })),
          )
          .execute();
      }
      changed('action_bindings');
    },

    /**
     * What a trigger runs, in one statement: its bindings in order, each with its action's deployed version and
     * that version's build. A bound action without a deployed version is left out.
     */
    async bound<D>(tenantId: string, triggerId: string): Promise<BoundVersionRecord<D>[]> {
      const rows = await db
        .selectFrom('action_bindings as b')
        .innerJoin('actions as a', (join) => join.onRef('a.tenant_id', '=', 'b.tenant_id').onRef('a.id', '=', 'b.action_id'))
        .innerJoin('action_versions as v', (join) => join.onRef('v.tenant_id', '=', 'a.tenant_id').onRef('v.id', '=', 'a.deployed_version_id'))
        .select(['a.id as action_id', 'a.name as action_name', 'v.id as version_id', 'v.data as data', 'v.bundled_code as bundled_code'])
        .where('b.tenant_id', '=', tenantId)
        .where('b.trigger_id', '=', triggerId)
        .orderBy('b.position')
        .execute();
      return rows.map((row) => ({ actionId: row.action_id, actionName: row.action_name, versionId: row.version_id, data: fromJson<D>(row.data), bundledCode: row.bundled_code }));
    },
  };
}

export type ActionsRepository = ReturnType<typeof actionsRepository>;
