import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * A linked secondary account (POST /users/{id}/identities) stays a row so that its credentials still log in, as
 * its primary; it is not a user of its own in the Management API's lists. The primary it belongs to becomes a
 * column, so lists leave such rows out in the query and their pages and totals count users only. Rows linked
 * before the column existed carry it in their JSON document; it is copied over here.
 */
export const userLinks = {
  async up(db: AnyDb): Promise<void> {
    await db.schema.alterTable('users').addColumn('linked_to', 'text').execute();
    const linked = await db.selectFrom('users').select(['tenant_id', 'user_id', 'data']).where('data', 'like', '%"linked_to"%').execute();
    for (const row of linked as { tenant_id: string; user_id: string; data: string }[]) {
      const primary = (JSON.parse(row.data) as { linked_to?: unknown }).linked_to;
      if (typeof primary !== 'string') continue;
      await db.updateTable('users').set({ linked_to: primary }).where('tenant_id', '=', row.tenant_id).where('user_id', '=', row.user_id).execute();
    }
  },
};
