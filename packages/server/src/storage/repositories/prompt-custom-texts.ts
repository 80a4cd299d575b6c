import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { fromJson, toJson } from './json.js';

/** `changed` runs after a write, so that cached texts are dropped (storage.onChange). */
export function promptCustomTextsRepository(db: Kysely<Database>, changed: () => void = () => {}) {
  return {
    /** The stored document of one prompt and language; undefined when none was ever stored. */
    async get<D>(tenantId: string, prompt: string, language: string): Promise<D | undefined> {
      const row = await db
        .selectFrom('prompt_custom_texts')
        .select('data')
        .where('tenant_id', '=', tenantId)
        .where('prompt', '=', prompt)
        .where('language', '=', language)
        .executeTakeFirst();
      return row && fromJson<D>(row.data);
    },
    /** Replaces the document of one prompt and language as a whole, in one statement. */
    async put(tenantId: string, prompt: string, language: string, data: unknown): Promise<void> {
      await db
        .insertInto('prompt_custom_texts')
        .values({ tenant_id: tenantId, prompt, language, data: toJson(data) })
        .onConflict((oc) => oc.columns(['tenant_id', 'prompt', 'language']).doUpdateSet({ data: toJson(data) }))
        .execute();
      changed();
    },
  };
}
