import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** The fields this migration tells the layouts apart by (oauth/refresh-tokens.ts has the whole row). */
interface StoredRefreshToken {
  secret?: unknown;
  idle_expires_at?: unknown;
}

interface Row {
  tenant_id: string;
  id: string;
  data: string;
  expires_at: string;
}

/**
 * Refresh tokens are redeemed in one layout from here on: a chain row, found by the chain id of a
 * `<chain id>.<secret>` token, holding the hash of the secret in force and its idle expiry in its data
 * (oauth/refresh-tokens.ts). The two layouts stored before it are retired here:
 *
 * - A chain stored before the idle expiry moved into the data: its expiry column was its idle expiry. That value is
 *   copied into the data, so the same token, found by the same chain id and checked against the same hash, is
 *   redeemed as before, dies at the same moment if unused, and gets its horizon on its first rotation.
 * - One row per token, stored under the hash of a bare token (no chain id, no secret in the data). Such a row cannot
 *   become a chain: the client holds only the bare token, which names no chain, and only its hash is stored, so no
 *   chain token can be made for it. These rows are deleted, which logs those refresh tokens out: a client still
 *   holding a live one is refused it as unknown and its user signs in again, and a spent one presented again is
 *   unknown too, where it used to revoke its grant. Such tokens stopped being issued when chains came and lived 30
 *   days, so a deployment that ran chains for 30 days has none live; one upgrading straight from before chains logs
 *   out every refresh token it had.
 *
 * The data is rewritten with JSON.stringify, as the repository writes it: rotations compare the stored text with the
 * one they read (artifacts.swap). Each update also compares the text it read, so a rotation that a node still
 * running (during a rolling upgrade) makes meanwhile is not undone.
 */
export const refreshTokenChains = {
  async up(db: AnyDb): Promise<void> {
    // Current chains carry `"idle_expires_at":` and are left alone (the check below decides for every row read).
    const rows = (await db
      .selectFrom('artifacts')
      .select(['tenant_id', 'id', 'data', 'expires_at'])
      .where('kind', '=', 'refresh_token')
      .where('data', 'not like', '%"idle_expires_at":%')
      .execute()) as Row[];
    for (const row of rows) {
      const data = JSON.parse(row.data) as StoredRefreshToken;
      if (typeof data.idle_expires_at === 'string') continue;
      if (typeof data.secret === 'string') {
        await db
          .updateTable('artifacts')
          .set({ data: JSON.stringify({ ...data, idle_expires_at: row.expires_at }) })
          .where('tenant_id', '=', row.tenant_id)
          .where('kind', '=', 'refresh_token')
          .where('id', '=', row.id)
          .where('data', '=', row.data)
          .execute();
      } else {
        await db.deleteFrom('artifacts').where('tenant_id', '=', row.tenant_id).where('kind', '=', 'refresh_token').where('id', '=', row.id).execute();
      }
    }
  },
};
