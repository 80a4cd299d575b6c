import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { fromJson, toJson } from './json.js';
import type { PageWindow } from './page.js';

export interface RenderingConfigRecord<Data> {
  prompt: string;
  screen: string;
  data: Data;
}

/** `changed` runs after a write, so that cached configurations are dropped (storage.onChange). */
export function renderingConfigsRepository(db: Kysely<Database>, changed: () => void = () => {}) {
  return {
    /** The window of all configurations in creation order, and how many there are in all. */
    async window<D>(tenantId: string, window: PageWindow): Promise<{ items: RenderingConfigRecord<D>[]; total: number }> {
      const [rows, count] = await Promise.all([
        db
          .selectFrom('rendering_configs')
          .select(['prompt', 'screen', 'data'])
          .where('tenant_id', '=', tenantId)
          .orderBy('seq')
          .offset(window.offset)
          .limit(window.limit)
          .execute(),
        db
          .selectFrom('rendering_configs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', tenantId)
          .executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map((row) => ({ prompt: row.prompt, screen: row.screen, data: fromJson<D>(row.data) })), total: Number(count.n) };
    },
    async get<D>(tenantId: string, prompt: string, screen: string): Promise<RenderingConfigRecord<D> | undefined> {
      const row = await db
        .selectFrom('rendering_configs')
        .select(['prompt', 'screen', 'data'])
        .where('tenant_id', '=', tenantId)
        .where('prompt', '=', prompt)
        .where('screen', '=', screen)
        .executeTakeFirst();
      return row && { prompt: row.prompt, screen: row.screen, data: fromJson<D>(row.data) };
    },
    /** Writes a configuration; a pair written before keeps its place in the creation order. */
    async put(tenantId: string, prompt: string, screen: string, data: unknown): Promise<void> {
      await db
        .insertInto('rendering_configs')
        .values({ tenant_id: tenantId, prompt, screen, data: toJson(data) })
        .onConflict((oc) => oc.columns(['tenant_id', 'prompt', 'screen']).doUpdateSet({ data: toJson(data) }))
        .execute();
      changed();
    },
  };
}
