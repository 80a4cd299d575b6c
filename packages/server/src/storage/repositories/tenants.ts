import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { fromJson, toJson } from './json.js';

export interface TenantRecord<Settings> {
  id: string;
  settings: Settings;
  createdAt: string;
}

/** `changed` runs after a write, so that cached tenant settings are dropped (storage.onChange). */
export function tenantsRepository(db: Kysely<Database>, changed: () => void = () => {}) {
  return {
    async get<S>(id: string): Promise<TenantRecord<S> | undefined> {
      const row = await db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
      return row && { id: row.id, settings: fromJson<S>(row.settings), createdAt: row.created_at };
    },
    /** Creates the tenant unless it exists; returns whether it was created. */
    async insertIfMissing(id: string, settings: unknown, now: string): Promise<boolean> {
      const result = await db
        .insertInto('tenants')
        .values({ id, settings: toJson(settings), created_at: now })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      changed();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async updateSettings(id: string, settings: unknown): Promise<void> {
      await db.updateTable('tenants').set({ settings: toJson(settings) }).where('id', '=', id).execute();
      changed();
    },
  };
}
