import { hmacSha256 } from '../../crypto/deployment-secret.js';
import { safeEqual } from '../../crypto/handles.js';
import { randomId } from '../../crypto/random.js';
import { open, seal } from '../../crypto/secret-box.js';
import type { AuthenticatorRecord, AuthenticatorType } from '../../storage/repositories/authenticators.js';
import type { Storage } from '../../storage/storage.js';
import type { LogEventType, NewLogEvent } from '../events/event.js';
import type { EventRecorder } from '../events/recorder.js';
import { newTotpSecret, verifyTotp } from './totp.js';

/**
 * A user's multi-factor authenticators, for every surface (the Management API, the MFA API and its grants, later
 * the hosted pages): enrolling, proving, removing, with every change in the tenant log under the platform's
 * `gd_*` codes. Secrets never leave here in the clear except once, to the user enrolling: TOTP secrets are sealed
 * (`mfa-secret-seal`), recovery codes kept as a keyed hash.
 */
export interface AuthenticatorsDeps {
  storage: Storage;
  tenantId: string;
  /** Seals TOTP secrets at rest. */
  sealingKey: Buffer;
  /** Keys the hashes of recovery codes and one-time codes. */
  codeKey: Buffer;
  events: EventRecorder;
  now: () => Date;
}

/** The platform's prefix of an authenticator's id per type, as the MFA API and the Management API show it. */
const ID_PREFIX: Record<AuthenticatorType, string> = {
  otp: 'totp',
  sms: 'sms',
  email: 'email',
  'recovery-code': 'recovery-code',
  'webauthn-roaming': 'webauthn-roaming',
  'webauthn-platform': 'webauthn-platform',
  passkey: 'passkey',
};

/** `totp|dev_…`: how the platform names an authenticator outside the Guardian enrollments. */
export const publicId = (record: Pick<AuthenticatorRecord, 'type' | 'id'>) => `${ID_PREFIX[record.type]}|${record.id}`;

/** The stored id of any of the forms it is shown in (`dev_…`, `totp|dev_…`, `phone|dev_…`). */
export const storedId = (id: string) => id.slice(id.lastIndexOf('|') + 1);

const RECOVERY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A recovery code as the platform shows it: 24 characters, upper-case letters and digits (each equally likely). */
const newRecoveryCode = (): string => randomId(24, RECOVERY_ALPHABET);


export type NewAuthenticator =
  | { type: 'otp'; name?: string | undefined; secret?: string | undefined }
  | { type: 'sms'; phoneNumber: string; name?: string | undefined; preferred?: 'sms' | 'voice' | undefined }
  | { type: 'email'; email: string; name?: string | undefined };

export function authenticators(deps: AuthenticatorsDeps) {
  const { storage, tenantId } = deps;
  const at = () => deps.now().toISOString();
  const codeHash = (code: string) => hmacSha256(deps.codeKey, `recovery\n${code.replace(/\s+/g, '').toUpperCase()}`).toString('base64url');
  const log = (type: LogEventType, userId: string, fields: Partial<NewLogEvent> = {}) => deps.events.record({ type, user_id: userId, ...fields });

  /** The record of a new authenticator, and for TOTP its secret in the clear (to show once). */
  function build(userId: string, input: NewAuthenticator, status: 'pending' | 'confirmed'): { record: AuthenticatorRecord; secret?: string } {
    const createdAt = at();
    const secret = input.type === 'otp' ? (input.secret?.toUpperCase() ?? newTotpSecret()) : undefined;
    const record: AuthenticatorRecord = {
      id: `dev_${randomId(16)}`,
      userId,
      type: input.type,
      status,
      name: input.name ?? (input.type === 'sms' ? input.phoneNumber : input.type === 'email' ? input.email : null),
      phoneNumber: input.type === 'sms' ? input.phoneNumber : null,
      email: input.type === 'email' ? input.email : null,
      secretSealed: secret !== undefined ? seal(deps.sealingKey, secret) : null,
      codeHash: null,
      lastStep: null,
      credentialId: null,
      signCount: null,
      data: input.type === 'sms' ? { preferred_authentication_method: input.preferred ?? 'sms' } : {},
      createdAt,
      enrolledAt: status === 'confirmed' ? createdAt : null,
      lastAuthAt: null,
    };
    return { record, ...(secret !== undefined ? { secret } : {}) };
  }

  return {
    publicId,
    listOf: (userId: string) => storage.authenticators.listOfUser(tenantId, userId),

    /** The user's authenticator by any of its shown ids; undefined when it is not theirs. */
    async find(userId: string, id: string): Promise<AuthenticatorRecord | undefined> {
      const found = await storage.authenticators.get(tenantId, storedId(id));
      return found && found.userId === userId ? found : undefined;
    },

    async get(id: string): Promise<AuthenticatorRecord | undefined> {
      return storage.authenticators.get(tenantId, storedId(id));
    },

    /**
     * Enrolls a factor: `confirmed` (an administrator vouches for it) or `pending` until the user proves it with a
     * first code. Answers the record and, for TOTP, the secret (to show once).
     */
    async enroll(userId: string, input: NewAuthenticator, status: 'pending' | 'confirmed', origin: Partial<NewLogEvent> = {}): Promise<{ record: AuthenticatorRecord; secret?: string }> {
      const built = build(userId, input, status);
      await storage.authenticators.insert(tenantId, built.record);
      log(status === 'confirmed' ? 'gd_enrollment_complete' : 'gd_start_enroll', userId, { ...origin, details: { authenticator_type: input.type, id: publicId(built.record) } });
      return built;
    },

    /** Replaces all of a user's authenticators with these (confirmed), in one transaction: all of it or nothing. */
    async replaceAll(userId: string, inputs: readonly NewAuthenticator[], origin: Partial<NewLogEvent> = {}): Promise<AuthenticatorRecord[]> {
      const records = inputs.map((input) => build(userId, input, 'confirmed').record);
      const removed = await storage.transaction(async (repos) => {
        const count = await repos.authenticators.removeOfUser(tenantId, userId);
        for (const record of records) await repos.authenticators.insert(tenantId, record);
        return count;
      });
      if (removed > 0) log('gd_unenroll', userId, { ...origin, details: { removed } });
      for (const record of records) log('gd_enrollment_complete', userId, { ...origin, details: { authenticator_type: record.type, id: publicId(record) } });
      return records;
    },

    /** A new recovery code for the user, replacing any they had; answered once, stored as a hash. */
    async newRecoveryCode(userId: string, status: 'pending' | 'confirmed', origin: Partial<NewLogEvent> = {}): Promise<{ record: AuthenticatorRecord; code: string }> {
      const code = newRecoveryCode();
      const createdAt = at();
      const record: AuthenticatorRecord = {
        id: `dev_${randomId(16)}`,
        userId,
        type: 'recovery-code',
        status,
        name: null,
        phoneNumber: null,
        email: null,
        secretSealed: null,
        codeHash: codeHash(code),
        lastStep: null,
        credentialId: null,
        signCount: null,
        data: {},
        createdAt,
        enrolledAt: status === 'confirmed' ? createdAt : null,
        lastAuthAt: null,
      };
      await storage.transaction(async (repos) => {
        await repos.authenticators.removeOfUser(tenantId, userId, ['recovery-code']);
        await repos.authenticators.insert(tenantId, record);
      });
      log('gd_enrollment_complete', userId, { ...origin, details: { authenticator_type: 'recovery-code', id: publicId(record) } });
      return { record, code };
    },

    /** A first code proved the enrollment: the authenticator, and a recovery code given with it, are confirmed. */
    async confirm(record: AuthenticatorRecord, origin: Partial<NewLogEvent> = {}): Promise<void> {
      if (record.status === 'confirmed') return;
      const enrolledAt = at();
      await storage.authenticators.update(tenantId, record.id, { status: 'confirmed', enrolledAt });
      for (const other of await storage.authenticators.listOfUser(tenantId, record.userId)) {
        if (other.type === 'recovery-code' && other.status === 'pending') await storage.authenticators.update(tenantId, other.id, { status: 'confirmed', enrolledAt });
      }
      log('gd_enrollment_complete', record.userId, { ...origin, details: { authenticator_type: record.type, id: publicId(record) } });
    },

    /** The secret of an authenticator app still being enrolled, to show its user again (QR code or text); never once confirmed. */
    enrollmentSecret(record: AuthenticatorRecord): string | undefined {
      if (record.type !== 'otp' || record.status !== 'pending' || record.secretSealed === null) return undefined;
      return open(deps.sealingKey, record.secretSealed);
    },

    /** A TOTP code for this authenticator: true once per time step; a wrong or replayed code is false. */
    async checkTotp(record: AuthenticatorRecord, code: string): Promise<boolean> {
      if (record.type !== 'otp' || record.secretSealed === null) return false;
      const step = await verifyTotp(open(deps.sealingKey, record.secretSealed), code, deps.now(), record.lastStep);
      if (step === undefined) return false;
      return storage.authenticators.useStep(tenantId, record.id, step, at());
    },

    /** The user's recovery code, spent if right (exactly once, whoever else tries it at the same moment). */
    async spendRecoveryCode(userId: string, code: string): Promise<AuthenticatorRecord | undefined> {
      const hash = codeHash(code);
      const held = (await storage.authenticators.listOfUser(tenantId, userId)).find((record) => record.type === 'recovery-code' && record.status === 'confirmed');
      if (!held || held.codeHash === null || !safeEqual(held.codeHash, hash)) return undefined;
      return (await storage.authenticators.removeIfCode(tenantId, held.id, hash)) ? held : undefined;
    },

    async touched(record: AuthenticatorRecord): Promise<void> {
      await storage.authenticators.update(tenantId, record.id, { lastAuthAt: at() });
    },

    async rename(record: AuthenticatorRecord, changes: { name?: string | undefined; preferred?: 'sms' | 'voice' | undefined }, origin: Partial<NewLogEvent> = {}): Promise<AuthenticatorRecord> {
      const data = changes.preferred !== undefined ? { ...record.data, preferred_authentication_method: changes.preferred } : undefined;
      await storage.authenticators.update(tenantId, record.id, { ...(changes.name !== undefined ? { name: changes.name } : {}), ...(data ? { data } : {}) });
      log('gd_update_device_account', record.userId, { ...origin, details: { id: publicId(record) } });
      return { ...record, ...(changes.name !== undefined ? { name: changes.name } : {}), ...(data ? { data } : {}) };
    },

    async remove(record: AuthenticatorRecord, origin: Partial<NewLogEvent> = {}): Promise<boolean> {
      const removed = await storage.authenticators.remove(tenantId, record.id);
      if (removed) log('gd_unenroll', record.userId, { ...origin, details: { authenticator_type: record.type, id: publicId(record) } });
      return removed;
    },

    async removeAll(userId: string, origin: Partial<NewLogEvent> = {}): Promise<number> {
      const removed = await storage.authenticators.removeOfUser(tenantId, userId);
      if (removed > 0) log('gd_unenroll', userId, { ...origin, details: { removed } });
      return removed;
    },

    async invalidateRememberedBrowsers(userId: string): Promise<void> {
      await storage.authenticators.revokeRememberedBrowsers(tenantId, userId, at());
    },
  };
}

export type Authenticators = ReturnType<typeof authenticators>;
