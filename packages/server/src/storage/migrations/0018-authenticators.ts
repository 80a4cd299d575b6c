import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * Multi-factor authentication (issue 29):
 * - `authenticators`: a user's enrolled (or enrolling) factors: `otp`, `sms`, `email`, `recovery-code`, and later
 *   `webauthn-roaming`, `webauthn-platform`, `passkey` (their credential fields go in `data`). `status` is
 *   `pending` until the first code proves the enrollment, then `confirmed`. A TOTP secret is only stored sealed
 *   (crypto/secret-box, key `mfa-secret-seal`), a recovery code only as a keyed hash. `last_step` is the last TOTP
 *   time step accepted, so a code is used once within its window (a conditional update, atomic on both dialects).
 * - `mfa_remember_revocations`: when a user's "remember this browser" marks were last invalidated
 *   (`/users/{id}/multifactor/actions/invalidate-remember-browser`): a browser remembered before it is asked again.
 * Rows name users by id without foreign keys: the services remove them with the user.
 */
export const authenticators = {
  async up(db: AnyDb): Promise<void> {
    await db.schema
      .createTable('authenticators')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('phone_number', 'text')
      .addColumn('email', 'text')
      .addColumn('secret_sealed', 'text')
      .addColumn('code_hash', 'text')
      .addColumn('last_step', 'bigint')
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('enrolled_at', 'text')
      .addColumn('last_auth_at', 'text')
      .addPrimaryKeyConstraint('authenticators_pk', ['tenant_id', 'id'])
      .execute();
    await db.schema.createIndex('authenticators_user_idx').on('authenticators').columns(['tenant_id', 'user_id', 'created_at']).execute();
    await db.schema
      .createTable('mfa_remember_revocations')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('mfa_remember_revocations_pk', ['tenant_id', 'user_id'])
      .execute();
  },
};
