import { handleId, newHandle } from '../../crypto/handles.js';
import type { AuthenticatorRecord } from '../../storage/repositories/authenticators.js';
import type { Storage } from '../../storage/storage.js';
import { ServiceError } from '../errors.js';
import type { NewLogEvent } from '../events/event.js';
import type { EventRecorder } from '../events/recorder.js';
import { noUser } from '../users.js';
import { storedId, type Authenticators } from './authenticators.js';
import { isTotpSecret } from './totp.js';

/** How long a Guardian enrollment ticket (`POST /guardian/enrollments/ticket`) can be used. */
export const ENROLLMENT_TICKET_SECONDS = 5 * 86_400;

/** The Management API's type of an authentication method, and the prefix of its id. */
const METHOD_TYPE: Record<AuthenticatorRecord['type'], string> = {
  otp: 'totp',
  sms: 'phone',
  email: 'email',
  'recovery-code': 'recovery-code',
  'webauthn-roaming': 'webauthn-roaming',
  'webauthn-platform': 'webauthn-platform',
  passkey: 'passkey',
};

/** `/users/{id}/enrollments`' `auth_method` of the Guardian enrollments (e-mail and recovery codes are not among them). */
const ENROLLMENT_METHOD: Partial<Record<AuthenticatorRecord['type'], string>> = {
  otp: 'authenticator',
  sms: 'sms',
  'webauthn-roaming': 'webauthn-roaming',
  'webauthn-platform': 'webauthn-platform',
};

const noMethod = () => new ServiceError('not_found', 'The authentication method does not exist.', 'inexistent_authentication_method');
const noEnrollment = () => new ServiceError('not_found', 'Enrollment not found', 'inexistent_enrollment');

export interface AuthenticationMethodView {
  id: string;
  type: string;
  confirmed: boolean;
  name?: string;
  phone_number?: string;
  email?: string;
  preferred_authentication_method?: string;
  authentication_methods: { id: string; type: string }[];
  created_at: string;
  enrolled_at?: string;
  last_auth_at?: string;
}

export function methodView(record: AuthenticatorRecord): AuthenticationMethodView {
  const id = `${METHOD_TYPE[record.type]}|${record.id}`;
  const preferred = record.data.preferred_authentication_method;
  return {
    id,
    type: METHOD_TYPE[record.type],
    confirmed: record.status === 'confirmed',
    ...(record.name !== null ? { name: record.name } : {}),
    ...(record.phoneNumber !== null ? { phone_number: record.phoneNumber } : {}),
    ...(record.email !== null ? { email: record.email } : {}),
    ...(typeof preferred === 'string' ? { preferred_authentication_method: preferred } : {}),
    authentication_methods: [{ id, type: record.type === 'otp' ? 'totp' : record.type === 'sms' ? (preferred === 'voice' ? 'voice' : 'sms') : METHOD_TYPE[record.type] }],
    created_at: record.createdAt,
    ...(record.enrolledAt !== null ? { enrolled_at: record.enrolledAt } : {}),
    ...(record.lastAuthAt !== null ? { last_auth_at: record.lastAuthAt } : {}),
  };
}

function enrollmentView(record: AuthenticatorRecord) {
  const method = ENROLLMENT_METHOD[record.type] ?? record.type;
  return {
    id: record.id,
    status: record.status,
    type: method,
    ...(record.name !== null ? { name: record.name } : {}),
    ...(record.phoneNumber !== null ? { phone_number: record.phoneNumber } : {}),
    auth_method: method,
    ...(record.enrolledAt !== null ? { enrolled_at: record.enrolledAt } : {}),
    ...(record.lastAuthAt !== null ? { last_auth: record.lastAuthAt } : {}),
  };
}

export type NewMethod = {
  type: 'totp' | 'phone' | 'email' | 'webauthn-roaming' | 'passkey';
  name?: string | undefined;
  totp_secret?: string | undefined;
  phone_number?: string | undefined;
  email?: string | undefined;
  preferred_authentication_method?: 'sms' | 'voice' | undefined;
};

export interface UserFactorsDeps {
  storage: Storage;
  tenantId: string;
  issuer: string;
  authenticators: Authenticators;
  events: EventRecorder;
  /** Key of the hashes tickets are stored under. */
  handleKey: Buffer;
  now: () => Date;
}

/**
 * A user's factors through the Management API: `/users/{id}/enrollments`, `/users/{id}/authentication-methods`,
 * `/guardian/enrollments`, the enrollment ticket, the recovery code's regeneration and the invalidation of
 * remembered browsers. Methods an administrator creates are confirmed at once (they vouch for them).
 */
export function userFactors(deps: UserFactorsDeps) {
  const { storage, tenantId, authenticators } = deps;
  const management: Partial<NewLogEvent> = { details: { by: 'management_api' } };

  async function existingUser(userId: string) {
    const user = await storage.users.get(tenantId, userId);
    if (!user || user.columns.linked_to !== null) throw noUser();
    return user;
  }

  async function method(userId: string, methodId: string): Promise<AuthenticatorRecord> {
    await existingUser(userId);
    const found = await authenticators.find(userId, methodId);
    if (!found) throw noMethod();
    return found;
  }

  function checkedNew(input: NewMethod) {
    switch (input.type) {
      case 'totp':
        if (input.totp_secret === undefined) throw new ServiceError('invalid', 'totp_secret is required for a totp authentication method.', 'invalid_body');
        if (!isTotpSecret(input.totp_secret)) throw new ServiceError('invalid', 'totp_secret must be a Base32 secret of at least 16 characters.', 'invalid_body');
        return { type: 'otp' as const, name: input.name, secret: input.totp_secret };
      case 'phone':
        if (input.phone_number === undefined) throw new ServiceError('invalid', 'phone_number is required for a phone authentication method.', 'invalid_body');
        return { type: 'sms' as const, phoneNumber: input.phone_number, name: input.name, preferred: input.preferred_authentication_method };
      case 'email':
        if (input.email === undefined) throw new ServiceError('invalid', 'email is required for an email authentication method.', 'invalid_body');
        return { type: 'email' as const, email: input.email, name: input.name };
      default:
        throw new ServiceError('invalid', `Authentication methods of type '${input.type}' are enrolled by the user (WebAuthn), not created through the Management API yet.`, 'invalid_body');
    }
  }

  return {
    async enrollments(userId: string) {
      await existingUser(userId);
      return (await authenticators.listOf(userId)).filter((record) => ENROLLMENT_METHOD[record.type] !== undefined).map(enrollmentView);
    },

    async guardianEnrollment(id: string) {
      const found = await authenticators.get(id);
      if (!found) throw noEnrollment();
      return { id: found.id, status: found.status, ...(found.name !== null ? { name: found.name } : {}), ...(found.phoneNumber !== null ? { phone_number: found.phoneNumber } : {}), ...(found.enrolledAt !== null ? { enrolled_at: found.enrolledAt } : {}), ...(found.lastAuthAt !== null ? { last_auth: found.lastAuthAt } : {}) };
    },

    async deleteGuardianEnrollment(id: string): Promise<void> {
      const found = await authenticators.get(id);
      if (!found) throw noEnrollment();
      await authenticators.remove(found, management);
    },

    async methods(userId: string): Promise<AuthenticationMethodView[]> {
      await existingUser(userId);
      return (await authenticators.listOf(userId)).map(methodView);
    },

    async method(userId: string, methodId: string): Promise<AuthenticationMethodView> {
      return methodView(await method(userId, methodId));
    },

    async createMethod(userId: string, input: NewMethod) {
      await existingUser(userId);
      const { record } = await authenticators.enroll(userId, checkedNew(input), 'confirmed', management);
      const view = methodView(record);
      return {
        id: view.id,
        type: view.type,
        ...(view.name !== undefined ? { name: view.name } : {}),
        ...(input.type === 'totp' ? { totp_secret: input.totp_secret } : {}),
        ...(view.phone_number !== undefined ? { phone_number: view.phone_number } : {}),
        ...(view.email !== undefined ? { email: view.email } : {}),
        ...(view.preferred_authentication_method !== undefined ? { preferred_authentication_method: view.preferred_authentication_method } : {}),
        authentication_methods: view.authentication_methods,
        created_at: view.created_at,
      };
    },

    /** Replaces all of the user's methods with these (the platform's PUT), validated before anything is removed. */
    async replaceMethods(userId: string, inputs: readonly NewMethod[]): Promise<AuthenticationMethodView[]> {
      await existingUser(userId);
      const checked = inputs.map(checkedNew);
      return (await authenticators.replaceAll(userId, checked, management)).map(methodView);
    },

    async updateMethod(userId: string, methodId: string, changes: { name?: string | undefined; preferred_authentication_method?: 'sms' | 'voice' | undefined }) {
      const found = await method(userId, methodId);
      if (changes.preferred_authentication_method !== undefined && found.type !== 'sms') {
        throw new ServiceError('invalid', 'preferred_authentication_method applies to phone authentication methods only.', 'invalid_body');
      }
      return methodView(await authenticators.rename(found, { name: changes.name, preferred: changes.preferred_authentication_method }, management));
    },

    async deleteMethod(userId: string, methodId: string): Promise<void> {
      await authenticators.remove(await method(userId, methodId), management);
    },

    async deleteAllMethods(userId: string): Promise<void> {
      await existingUser(userId);
      await authenticators.removeAll(userId, management);
    },

    async invalidateRememberBrowser(userId: string): Promise<void> {
      await existingUser(userId);
      await authenticators.invalidateRememberedBrowsers(userId);
    },

    async regenerateRecoveryCode(userId: string): Promise<{ recovery_code: string }> {
      await existingUser(userId);
      const { code } = await authenticators.newRecoveryCode(userId, 'confirmed', management);
      return { recovery_code: code };
    },

    /**
     * A Guardian enrollment ticket: a link the user follows to enroll a factor. The hosted enrollment page it leads
     * to is a later step of issue 29; the ticket is stored now (hashed, like every handle) so that page can redeem it.
     */
    async enrollmentTicket(input: { user_id: string; email?: string | undefined; factor?: string | undefined; allow_multiple_enrollments?: boolean | undefined }) {
      await existingUser(input.user_id);
      const ticket = newHandle();
      const now = deps.now();
      const id = handleId(deps.handleKey, ticket);
      await storage.artifacts.insert(tenantId, 'mfa_enrollment_ticket', {
        id,
        subject: input.user_id,
        data: { user_id: input.user_id, ...(input.factor !== undefined ? { factor: input.factor } : {}), allow_multiple_enrollments: input.allow_multiple_enrollments === true },
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + ENROLLMENT_TICKET_SECONDS * 1000).toISOString(),
      });
      deps.events.record({ type: 'gd_enrollment_ticket', user_id: input.user_id, ...management });
      return { ticket_id: id, ticket_url: `${deps.issuer}/u/mfa/enroll?ticket=${ticket}` };
    },
  };
}

export type UserFactors = ReturnType<typeof userFactors>;
export { storedId };
