import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { ArtifactKind } from './artifacts.js';
import { reusableQuery } from './reusable-query.js';

const KIND: ArtifactKind = 'revoked_grant';

/**
 * Revoked grants, as rows of the artifacts table (kind `revoked_grant`, id = the grant id): a revoked grant leaves
 * no live code or refresh token to look at, and a password grant never had any, so the revocation itself is what
 * access tokens are checked against. A row expires when the last access token the grant can have issued has, and
 * the artifact sweeper deletes it. `changed` runs after a write (storage.onChange, and other nodes by the change bus).
 */
export function grantRevocationsRepository(db: Kysely<Database>, changed: () => void = () => {}) {
  // Compiled once: on a cache miss of /userinfo this is the one extra read (oauth/grant-revocations.ts).
  const selectLive = reusableQuery(db, 3, (tenantId: string, grantId: string, now: string) =>
    db
      .selectFrom('artifacts')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('kind', '=', KIND)
      .where('id', '=', grantId)
      .where('expires_at', '>', now),
  );

  return {
    /**
     * Records that the grant is revoked until `until`; a grant revoked before stays as it was. The row has no family,
     * so that revoking the grant's family again (another replay) cannot end it.
     */
    async add(tenantId: string, grantId: string, at: string, until: string): Promise<void> {
      await db
        .insertInto('artifacts')
        .values({ tenant_id: tenantId, kind: KIND, id: grantId, family: null, subject: null, data: '{}', created_at: at, expires_at: until, consumed_at: null })
        .onConflict((oc) => oc.doNothing())
        .execute();
      changed();
    },
    async isRevoked(tenantId: string, grantId: string, now: string): Promise<boolean> {
      return (await selectLive(tenantId, grantId, now)).rows.length > 0;
    },
  };
}
