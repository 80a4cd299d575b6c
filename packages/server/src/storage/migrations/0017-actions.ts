import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * Actions (`/api/v2/actions`), tenant code run at the triggers:
 * - `actions`: one row per action holding its draft, the code an operator edits. `name` is unique per tenant;
 *   `trigger_id` is the draft's supported trigger (an action supports one); `deployed_version_id` names the version
 *   the triggers run (null until the first deploy); `data` is the draft as JSON (code as written, dependencies,
 *   runtime, secrets sealed, build status and errors); `bundled_code` is the draft's runnable build (null when it
 *   failed), kept out of `data` so that lists do not read it;
 * - `action_versions`: the immutable versions a deploy makes, numbered per action from 1; `data` and
 *   `bundled_code` as in `actions` (a version is only ever made from a built draft, so its bundle is never null);
 * - `action_bindings`: the actions each trigger runs, in `position` order (a PATCH replaces a trigger's whole list);
 * - `action_executions`: what one run of a trigger's actions did, kept until `expires_at` (the sweeper deletes it).
 * Rows name actions by id without foreign keys: the service removes an action's versions and bindings with it, in
 * the same transaction.
 */
export const actions = {
  async up(db: AnyDb): Promise<void> {
    await db.schema
      .createTable('actions')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('trigger_id', 'text', (c) => c.notNull())
      .addColumn('deployed_version_id', 'text')
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('bundled_code', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('actions_pk', ['tenant_id', 'id'])
      .addUniqueConstraint('actions_name_uq', ['tenant_id', 'name'])
      .execute();
    await db.schema.createIndex('actions_trigger_idx').on('actions').columns(['tenant_id', 'trigger_id']).execute();
    await db.schema
      .createTable('action_versions')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('action_id', 'text', (c) => c.notNull())
      .addColumn('number', 'integer', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('bundled_code', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('action_versions_pk', ['tenant_id', 'id'])
      .addUniqueConstraint('action_versions_number_uq', ['tenant_id', 'action_id', 'number'])
      .execute();
    await db.schema
      .createTable('action_bindings')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('trigger_id', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('action_id', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('action_bindings_pk', ['tenant_id', 'trigger_id', 'position'])
      .execute();
    await db.schema.createIndex('action_bindings_action_idx').on('action_bindings').columns(['tenant_id', 'action_id']).execute();
    await db.schema
      .createTable('action_executions')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('trigger_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('results', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('action_executions_pk', ['tenant_id', 'id'])
      .execute();
    await db.schema.createIndex('action_executions_expiry_idx').on('action_executions').column('expires_at').execute();
  },
};
