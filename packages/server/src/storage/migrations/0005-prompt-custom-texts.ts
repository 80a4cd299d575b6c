import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * The custom texts of the hosted screens (`/api/v2/prompts/{prompt}/custom-text/{language}`): one row per prompt
 * and language, holding every screen's overrides as one JSON document, since the API reads and replaces them
 * only as a whole. One row makes a replacement a single statement, so a reader never sees half of one.
 */
export const promptCustomTexts = {
  async up(db: AnyDb): Promise<void> {
    await db.schema
      .createTable('prompt_custom_texts')
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('prompt', 'text', (c) => c.notNull())
      .addColumn('language', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('prompt_custom_texts_pk', ['tenant_id', 'prompt', 'language'])
      .execute();
  },
};
