import type { Kysely, Selectable } from 'kysely';
import type { Database, SigningKeyStatus, SigningKeysTable } from '../schema.js';

export type SigningKeyRow = Selectable<SigningKeysTable>;

/** `changed` runs after a write, so that cached key sets are dropped (storage.onChange, other nodes by the change bus). */
export function signingKeysRepository(db: Kysely<Database>, changed: () => void = () => {}) {
  return {
    async list(tenantId: string): Promise<SigningKeyRow[]> {
      return db.selectFrom('signing_keys').selectAll().where('tenant_id', '=', tenantId).orderBy('created_at').orderBy('kid').execute();
    },
    async insert(row: SigningKeyRow): Promise<void> {
      await db.insertInto('signing_keys').values(row).execute();
      changed();
    },
    async setStatus(
      tenantId: string,
      kid: string,
      status: SigningKeyStatus,
      times: Partial<Pick<SigningKeyRow, 'current_since' | 'current_until' | 'revoked_at'>> = {},
    ): Promise<void> {
      await db
        .updateTable('signing_keys')
        .set({ status, ...times })
        .where('tenant_id', '=', tenantId)
        .where('kid', '=', kid)
        .execute();
      changed();
    },
  };
}
