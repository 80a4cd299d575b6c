import type { Kysely, Selectable, Updateable } from 'kysely';
import type { AuthenticatorsTable, Database } from '../schema.js';
import { fromJson, toJson } from './json.js';

/** The factor types an authenticator can be (the WebAuthn ones and passkeys are enrolled by services/mfa/webauthn). */
export type AuthenticatorType = 'otp' | 'sms' | 'email' | 'recovery-code' | 'webauthn-roaming' | 'webauthn-platform' | 'passkey';
export type AuthenticatorStatus = 'pending' | 'confirmed';

export interface AuthenticatorRecord {
  id: string;
  userId: string;
  type: AuthenticatorType;
  status: AuthenticatorStatus;
  name: string | null;
  phoneNumber: string | null;
  email: string | null;
  /** The TOTP secret, sealed (never stored in the clear). */
  secretSealed: string | null;
  /** A recovery code's keyed hash. */
  codeHash: string | null;
  /** The last TOTP time step accepted. */
  lastStep: number | null;
  /** A WebAuthn credential's id (base64url), unique per tenant; null for other types. */
  credentialId: string | null;
  /** A WebAuthn credential's signature counter (0 for authenticators that keep none). */
  signCount: number | null;
  /** Fields of other factor types (e.g. `preferred_authentication_method`, a WebAuthn credential's public key). */
  data: Record<string, unknown>;
  createdAt: string;
  enrolledAt: string | null;
  lastAuthAt: string | null;
}

const toRecord = (row: Selectable<AuthenticatorsTable>): AuthenticatorRecord => ({
  id: row.id,
  userId: row.user_id,
  type: row.type as AuthenticatorType,
  status: row.status as AuthenticatorStatus,
  name: row.name,
  phoneNumber: row.phone_number,
  email: row.email,
  secretSealed: row.secret_sealed,
  codeHash: row.code_hash,
  lastStep: row.last_step === null ? null : Number(row.last_step),
  credentialId: row.credential_id,
  signCount: row.sign_count === null ? null : Number(row.sign_count),
  data: fromJson<Record<string, unknown>>(row.data),
  createdAt: row.created_at,
  enrolledAt: row.enrolled_at,
  lastAuthAt: row.last_auth_at,
});

export type AuthenticatorChanges = Partial<Pick<AuthenticatorRecord, 'status' | 'name' | 'phoneNumber' | 'email' | 'secretSealed' | 'codeHash' | 'data' | 'enrolledAt' | 'lastAuthAt'>>;

/**
 * Users' multi-factor authenticators and the invalidation of their remembered browsers (0018-authenticators).
 * A user's authenticators are listed in the order they were created.
 */
export function authenticatorsRepository(db: Kysely<Database>) {
  return {
    async insert(tenantId: string, record: AuthenticatorRecord): Promise<void> {
      await db
        .insertInto('authenticators')
        .values({
          tenant_id: tenantId,
          id: record.id,
          user_id: record.userId,
          type: record.type,
          status: record.status,
          name: record.name,
          phone_number: record.phoneNumber,
          email: record.email,
          secret_sealed: record.secretSealed,
          code_hash: record.codeHash,
          last_step: record.lastStep,
          credential_id: record.credentialId,
          sign_count: record.signCount,
          data: toJson(record.data),
          created_at: record.createdAt,
          enrolled_at: record.enrolledAt,
          last_auth_at: record.lastAuthAt,
        })
        .execute();
    },

    async get(tenantId: string, id: string): Promise<AuthenticatorRecord | undefined> {
      const row = await db.selectFrom('authenticators').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },

    /** The authenticator holding a WebAuthn credential, whoever's it is (a passkey sign-in names no user). */
    async getByCredentialId(tenantId: string, credentialId: string): Promise<AuthenticatorRecord | undefined> {
      const row = await db.selectFrom('authenticators').selectAll().where('tenant_id', '=', tenantId).where('credential_id', '=', credentialId).executeTakeFirst();
      return row && toRecord(row);
    },

    async listOfUser(tenantId: string, userId: string): Promise<AuthenticatorRecord[]> {
      const rows = await db.selectFrom('authenticators').selectAll().where('tenant_id', '=', tenantId).where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
      return rows.map(toRecord);
    },

    async update(tenantId: string, id: string, changes: AuthenticatorChanges): Promise<boolean> {
      const set: Updateable<AuthenticatorsTable> = {};
      if (changes.status !== undefined) set.status = changes.status;
      if (changes.name !== undefined) set.name = changes.name;
      if (changes.phoneNumber !== undefined) set.phone_number = changes.phoneNumber;
      if (changes.email !== undefined) set.email = changes.email;
      if (changes.secretSealed !== undefined) set.secret_sealed = changes.secretSealed;
      if (changes.codeHash !== undefined) set.code_hash = changes.codeHash;
      if (changes.data !== undefined) set.data = toJson(changes.data);
      if (changes.enrolledAt !== undefined) set.enrolled_at = changes.enrolledAt;
      if (changes.lastAuthAt !== undefined) set.last_auth_at = changes.lastAuthAt;
      if (Object.keys(set).length === 0) return (await this.get(tenantId, id)) !== undefined;
      const result = await db.updateTable('authenticators').set(set).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /**
     * Records a TOTP step as used, only if it is later than the last one used (one conditional UPDATE: of two
     * requests with the same code exactly one wins). False: the step (or a later one) was used already.
     */
    async useStep(tenantId: string, id: string, step: number, at: string): Promise<boolean> {
      const result = await db
        .updateTable('authenticators')
        .set({ last_step: step, last_auth_at: at })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /**
     * Records a WebAuthn signature counter as used, only if it is higher than the one stored (one conditional
     * UPDATE: of two assertions with the same counter exactly one wins). A counter of 0 is an authenticator that
     * keeps none: only the time is recorded, and replay is left to the single-use challenge. False: the counter
     * (or a higher one) was used already, a sign of a cloned authenticator or a replayed assertion.
     */
    async useSignCount(tenantId: string, id: string, signCount: number, at: string): Promise<boolean> {
      let query = db.updateTable('authenticators').set({ last_auth_at: at }).where('tenant_id', '=', tenantId).where('id', '=', id);
      if (signCount > 0) query = query.set({ sign_count: signCount }).where((eb) => eb.or([eb('sign_count', 'is', null), eb('sign_count', '<', signCount)]));
      const result = await query.executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Removes an authenticator only if its code hash is still `codeHash` (a recovery code is spent once). */
    async removeIfCode(tenantId: string, id: string, codeHash: string): Promise<boolean> {
      const result = await db.deleteFrom('authenticators').where('tenant_id', '=', tenantId).where('id', '=', id).where('code_hash', '=', codeHash).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async remove(tenantId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('authenticators').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /** Removes a user's authenticators (all of them, or those of some types); the number removed. */
    async removeOfUser(tenantId: string, userId: string, types?: readonly AuthenticatorType[]): Promise<number> {
      let query = db.deleteFrom('authenticators').where('tenant_id', '=', tenantId).where('user_id', '=', userId);
      if (types) {
        if (types.length === 0) return 0;
        query = query.where('type', 'in', types);
      }
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Browsers remembered before `at` must ask for a second factor again. */
    async revokeRememberedBrowsers(tenantId: string, userId: string, at: string): Promise<void> {
      await db
        .insertInto('mfa_remember_revocations')
        .values({ tenant_id: tenantId, user_id: userId, revoked_at: at })
        .onConflict((oc) => oc.columns(['tenant_id', 'user_id']).doUpdateSet({ revoked_at: at }))
        .execute();
    },

    async rememberedBrowsersRevokedAt(tenantId: string, userId: string): Promise<string | undefined> {
      const row = await db.selectFrom('mfa_remember_revocations').select('revoked_at').where('tenant_id', '=', tenantId).where('user_id', '=', userId).executeTakeFirst();
      return row?.revoked_at;
    },

    /** With the user: their authenticators and revocation mark. */
    async removeUser(tenantId: string, userId: string): Promise<void> {
      await db.deleteFrom('authenticators').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
      await db.deleteFrom('mfa_remember_revocations').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
    },
  };
}

export type AuthenticatorsRepository = ReturnType<typeof authenticatorsRepository>;
