import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { PageOf, PageWindow } from './page.js';

/** The consent one user gave one application for one API. */
export interface ConsentRecord {
  id: string;
  userId: string;
  clientId: string;
  audience: string;
  scope: string[];
  createdAt: string;
  updatedAt: string;
}

export interface ConsentFilter {
  userId?: string;
  clientId?: string;
  audience?: string;
}

type Row = Database['user_grants'];

const toRecord = (row: Row): ConsentRecord => ({
  id: row.id,
  userId: row.user_id,
  clientId: row.client_id,
  audience: row.audience,
  scope: JSON.parse(row.scope) as string[],
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** User grants (0015-user-grants); listed by user, then application, then API, so that pages are stable. */
export function consentsRepository(db: Kysely<Database>) {
  const filtered = (tenantId: string, filter: ConsentFilter) => {
    let query = db.selectFrom('user_grants').where('tenant_id', '=', tenantId);
    if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
    if (filter.clientId !== undefined) query = query.where('client_id', '=', filter.clientId);
    if (filter.audience !== undefined) query = query.where('audience', '=', filter.audience);
    return query;
  };

  return {
    async find(tenantId: string, userId: string, clientId: string, audience: string): Promise<ConsentRecord | undefined> {
      const row = await filtered(tenantId, { userId, clientId, audience }).selectAll().executeTakeFirst();
      return row && toRecord(row);
    },

    /**
     * Records consent to `scope`, added to what the grant already holds; `id` is used when the grant is new. Two
     * first consents at once meet on the unique key, and the later one's scopes stand.
     */
    async grant(tenantId: string, grant: { id: string; userId: string; clientId: string; audience: string; scope: readonly string[] }, at: string): Promise<void> {
      const existing = await this.find(tenantId, grant.userId, grant.clientId, grant.audience);
      if (existing) {
        const scope = [...new Set([...existing.scope, ...grant.scope])];
        await db.updateTable('user_grants').set({ scope: JSON.stringify(scope), updated_at: at }).where('tenant_id', '=', tenantId).where('id', '=', existing.id).execute();
        return;
      }
      await db
        .insertInto('user_grants')
        .values({ tenant_id: tenantId, id: grant.id, user_id: grant.userId, client_id: grant.clientId, audience: grant.audience, scope: JSON.stringify([...new Set(grant.scope)]), created_at: at, updated_at: at })
        .onConflict((oc) => oc.columns(['tenant_id', 'user_id', 'client_id', 'audience']).doUpdateSet({ scope: JSON.stringify([...new Set(grant.scope)]), updated_at: at }))
        .execute();
    },

    async list(tenantId: string, filter: ConsentFilter, window: PageWindow): Promise<PageOf<ConsentRecord>> {
      const query = filtered(tenantId, filter);
      const [rows, total] = await Promise.all([
        query.selectAll().orderBy('user_id').orderBy('client_id').orderBy('audience').offset(window.offset).limit(window.limit).execute(),
        query.select(db.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toRecord), total: Number(total.n) };
    },

    /** Deletes one grant; false when there was none. */
    async remove(tenantId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('user_grants').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /** Deletes every grant the filter matches (a user's, an application's, an API's); how many went. */
    async removeWhere(tenantId: string, filter: ConsentFilter): Promise<number> {
      let query = db.deleteFrom('user_grants').where('tenant_id', '=', tenantId);
      if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
      if (filter.clientId !== undefined) query = query.where('client_id', '=', filter.clientId);
      if (filter.audience !== undefined) query = query.where('audience', '=', filter.audience);
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
