import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * WebAuthn credentials (security keys, platform authenticators, passkeys) as authenticators (issue 29):
 * - `credential_id`: the credential's id (base64url), unique per tenant. A passkey sign-in names no user: the
 *   browser answers a credential id, which must find its authenticator by an index rather than a scan of `data`;
 *   the unique index also refuses the same credential enrolled twice (by two users, or two racing requests).
 *   Other factor types leave it null (both dialects let a unique index hold many nulls).
 * - `sign_count`: the authenticator's signature counter, in a column so that raising it is one conditional
 *   update (of two assertions with the same counter exactly one is accepted). The public key, transports, AAGUID
 *   and backup flags, read only with the row, stay in `data`.
 * SQLite adds one column per statement.
 */
export const webauthnCredentials = {
  async up(db: AnyDb): Promise<void> {
    await db.schema.alterTable('authenticators').addColumn('credential_id', 'text').execute();
    await db.schema.alterTable('authenticators').addColumn('sign_count', 'bigint').execute();
    await db.schema.createIndex('authenticators_credential_idx').on('authenticators').columns(['tenant_id', 'credential_id']).unique().execute();
  },
};
