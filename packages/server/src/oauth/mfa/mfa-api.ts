import { hmacSha256 } from '../../crypto/deployment-secret.js';
import { handleId, newHandle, safeEqual } from '../../crypto/handles.js';
import type { LoginProtection } from '../../services/login-protection.js';
import { publicId, type Authenticators } from '../../services/mfa/authenticators.js';
import { sixDigitCode } from '../../crypto/random.js';
import type { GuardianSettingsService } from '../../services/mfa/guardian-settings.js';
import { totpUri } from '../../services/mfa/totp.js';
import type { Notifier } from '../../services/notifier.js';
import type { EventRecorder } from '../../services/events/recorder.js';
import type { AuthenticatorRecord } from '../../storage/repositories/authenticators.js';
import type { Storage } from '../../storage/storage.js';
import type { OAuthError} from '../errors.js';
import { AccessDenied, InvalidRequest, TooManyMfaAttempts, UnsupportedChallengeType, WrongMfaCode } from '../errors.js';
import type { MfaTokens, ReadMfaToken } from './mfa-tokens.js';

/**
 * What brute-force protection counts wrong second-factor codes under (with the address): the user, not the login
 * name, so that the password's success (which ends the run of password failures) does not wipe them: only a right
 * second factor does. At the tenant's `max_attempts` the user's second factor is blocked from that address.
 */
export const mfaProtectionKey = (userId: string) => `mfa|${userId}`;

/** How long a code sent by SMS or e-mail can be used. */
export const OOB_CODE_SECONDS = 300;
/** Wrong codes one mfa_token (or one sent code) takes before it is given up on. */
export const MFA_MAX_FAILURES = 5;

interface OobChallenge {
  tokenId: string;
  authenticatorId: string;
  codeHash: string;
  failures: number;
}

export interface MfaApiDeps {
  storage: Storage;
  tenantId: string;
  settings: GuardianSettingsService;
  authenticators: Authenticators;
  tokens: MfaTokens;
  notifier: Notifier;
  events: EventRecorder;
  protection: LoginProtection;
  handleKey: Buffer;
  /** The name authenticator apps show the account under (the issuer's host). */
  issuerName: string;
  clientName: (clientId: string) => Promise<string>;
  now: () => Date;
}

export interface AuthenticatorView {
  id: string;
  authenticator_type: 'otp' | 'oob' | 'recovery-code';
  active: boolean;
  oob_channel?: 'sms' | 'email';
  name?: string;
}

/** Who calls the MFA API: the holder of an mfa_token (the first factor only), or of an MFA API access token. */
export interface MfaApiHolder {
  kind: 'mfa_token' | 'access_token';
  userId: string;
  clientId: string;
}

export const tokenHolder = (read: ReadMfaToken): MfaApiHolder => ({ kind: 'mfa_token', userId: read.data.userId, clientId: read.data.clientId });

export interface Origin {
  ip: string;
  userAgent?: string | undefined;
}

const view = (record: AuthenticatorRecord): AuthenticatorView | undefined => {
  const active = record.status === 'confirmed';
  switch (record.type) {
    case 'otp':
      return { id: publicId(record), authenticator_type: 'otp', active };
    case 'sms':
    case 'email':
      return { id: publicId(record), authenticator_type: 'oob', active, oob_channel: record.type, ...(record.name !== null ? { name: maskedName(record) } : {}) };
    case 'recovery-code':
      return { id: publicId(record), authenticator_type: 'recovery-code', active };
    default:
      return undefined;
  }
};

/**
 * The platform shows only the end of a phone number or the start of an address to a holder of an mfa_token (and on
 * the hosted challenge screens, which use the same two functions).
 */
export const maskedPhone = (phone: string | null) => (phone ? `XXXXXXXX${phone.slice(-4)}` : '');
export const maskedEmail = (email: string | null) => {
  const [local = '', domain = ''] = (email ?? '').split('@');
  return `${local.slice(0, 1)}***@${domain}`;
};

function maskedName(record: AuthenticatorRecord): string {
  if (record.type === 'sms' && record.phoneNumber) return maskedPhone(record.phoneNumber);
  if (record.type === 'email' && record.email) return maskedEmail(record.email);
  return record.name ?? '';
}

/**
 * The MFA API (`/mfa/authenticators`, `/mfa/associate`, `/mfa/challenge`) and the checks of the MFA grants, free
 * of HTTP. An mfa_token proves the first factor only: it may list the user's authenticators and enroll the first
 * one (a user with a confirmed authenticator must use it), and remove only one still being enrolled.
 */
export function mfaApi(deps: MfaApiDeps) {
  const { storage, tenantId, authenticators } = deps;
  const at = () => deps.now().toISOString();
  const bindingHash = (code: string) => hmacSha256(deps.handleKey, `mfa-oob\n${code}`).toString('base64url');

  async function usable(userId: string): Promise<AuthenticatorRecord[]> {
    return (await authenticators.listOf(userId)).filter((record) => record.type === 'otp' || record.type === 'sms' || record.type === 'email' || record.type === 'recovery-code');
  }

  async function sendCode(read: ReadMfaToken, record: AuthenticatorRecord, origin: Origin): Promise<string> {
    const code = sixDigitCode();
    const oobCode = newHandle();
    const now = deps.now();
    await storage.artifacts.insert(tenantId, 'mfa_oob', {
      id: handleId(deps.handleKey, oobCode),
      subject: record.userId,
      data: { tokenId: read.id, authenticatorId: record.id, codeHash: bindingHash(code), failures: 0 } satisfies OobChallenge,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + OOB_CODE_SECONDS * 1000).toISOString(),
    });
    const clientName = await deps.clientName(read.data.clientId);
    await deps.notifier.verificationCode({
      ...(record.type === 'sms' ? { phoneNumber: record.phoneNumber ?? undefined } : { email: record.email ?? undefined }),
      code,
      clientName,
      minutes: OOB_CODE_SECONDS / 60,
    });
    deps.events.record({ type: record.type === 'sms' ? 'gd_send_sms' : 'gd_send_email', user_id: record.userId, client_id: read.data.clientId, ip: origin.ip });
    return oobCode;
  }

  /** A wrong code: counted on the token and toward brute-force protection; the fifth spends the token. */
  async function wrongCode(read: ReadMfaToken, origin: Origin, error: OAuthError, failedEvent: 'gd_auth_failed' | 'gd_recovery_failed'): Promise<never> {
    deps.events.record({ type: failedEvent, user_id: read.data.userId, client_id: read.data.clientId, ip: origin.ip, description: error.description });
    await deps.protection.failed({ identifier: mfaProtectionKey(read.data.userId), ip: origin.ip, connection: read.data.connection ?? '', user: { id: read.data.userId } });
    const failures = await deps.tokens.failed(read);
    if (failures >= MFA_MAX_FAILURES) {
      await deps.tokens.spend(read);
      deps.events.record({ type: failedEvent === 'gd_recovery_failed' ? 'gd_recovery_rate_limit_exceed' : 'gd_otp_rate_limit_exceed', user_id: read.data.userId, client_id: read.data.clientId, ip: origin.ip });
      throw new TooManyMfaAttempts();
    }
    throw error;
  }

  return {
    /** The user's authenticators, for the holder of their mfa_token or of an MFA API access token (`read:authenticators`). */
    async list(holder: MfaApiHolder): Promise<AuthenticatorView[]> {
      return (await usable(holder.userId)).map(view).filter((item): item is AuthenticatorView => item !== undefined);
    },

    /**
     * Removes one of the user's authenticators: with an mfa_token only one not yet confirmed (the token proves the
     * first factor alone); with an MFA API access token (`remove:authenticators`, issued after a full sign-in) any.
     */
    async remove(holder: MfaApiHolder, id: string, origin: Origin): Promise<void> {
      const found = await authenticators.find(holder.userId, id);
      if (!found) throw new InvalidRequest('The authenticator does not exist.');
      if (found.status === 'confirmed' && holder.kind === 'mfa_token') throw new AccessDenied('An mfa_token can only remove an authenticator that is not yet confirmed.');
      await authenticators.remove(found, { client_id: holder.clientId, ip: origin.ip });
    },

    async associate(read: ReadMfaToken, input: { authenticator_types: readonly string[]; oob_channels?: readonly string[] | undefined; phone_number?: string | undefined; email?: string | undefined }, origin: Origin) {
      const userId = read.data.userId;
      const held = await usable(userId);
      if (held.some((record) => record.status === 'confirmed' && record.type !== 'recovery-code')) throw new AccessDenied('User is already enrolled.');
      const type = input.authenticator_types[0];
      if (input.authenticator_types.length !== 1 || (type !== 'otp' && type !== 'oob')) throw new InvalidRequest('authenticator_types must be ["otp"] or ["oob"].');
      const channel = type === 'otp' ? 'otp' : input.oob_channels?.[0];
      if (channel !== 'otp' && channel !== 'sms' && channel !== 'email') throw new InvalidRequest('oob_channels must be ["sms"] or ["email"].');
      if (!(await deps.settings.enabled(channel))) throw new AccessDenied(`The ${channel} factor is not enabled for this tenant.`);
      const logged = { client_id: read.data.clientId, ip: origin.ip };
      // An enrollment not finished before is replaced by this one.
      for (const pending of held.filter((record) => record.status === 'pending' && record.type !== 'recovery-code')) await authenticators.remove(pending, logged);
      const recovery = (await deps.settings.enabled('recovery-code')) && !held.some((record) => record.type === 'recovery-code' && record.status === 'confirmed')
        ? await authenticators.newRecoveryCode(userId, 'pending', logged)
        : undefined;
      const recoveryCodes = recovery ? { recovery_codes: [recovery.code] } : {};
      if (channel === 'otp') {
        const { record, secret = '' } = await authenticators.enroll(userId, { type: 'otp' }, 'pending', logged);
        const label = (await storage.users.get(tenantId, userId))?.data.email ?? read.data.identifier;
        return { authenticator_type: 'otp' as const, secret, barcode_uri: totpUri(secret, deps.issuerName, label), ...recoveryCodes, id: publicId(record) };
      }
      const target = channel === 'sms' ? input.phone_number : input.email;
      if (!target) throw new InvalidRequest(channel === 'sms' ? 'phone_number is required for the sms channel.' : 'email is required for the email channel.');
      if (channel === 'sms' && !/^\+[1-9]\d{6,14}$/.test(target)) throw new InvalidRequest('phone_number must be an E.164 number, e.g. +15550100.');
      if (channel === 'email' && !/^[^\s@]+@[^\s@]+$/.test(target)) throw new InvalidRequest('email is not an e-mail address.');
      const { record } = await authenticators.enroll(userId, channel === 'sms' ? { type: 'sms', phoneNumber: target } : { type: 'email', email: target }, 'pending', logged);
      const oobCode = await sendCode(read, record, origin);
      return { authenticator_type: 'oob' as const, binding_method: 'prompt' as const, oob_channel: channel, oob_code: oobCode, ...recoveryCodes, id: publicId(record) };
    },

    async challenge(read: ReadMfaToken, input: { challenge_type?: string | undefined; authenticator_id?: string | undefined; oob_channel?: string | undefined }, origin: Origin) {
      const confirmed = (await usable(read.data.userId)).filter((record) => record.status === 'confirmed' && record.type !== 'recovery-code');
      if (confirmed.length === 0) throw new UnsupportedChallengeType('User is not enrolled.');
      const types = (input.challenge_type ?? 'otp oob').split(' ');
      const candidates = input.authenticator_id !== undefined ? confirmed.filter((record) => record.id === input.authenticator_id?.slice(input.authenticator_id.lastIndexOf('|') + 1)) : confirmed;
      const chosen = candidates.find((record) =>
        record.type === 'otp' ? types.includes('otp') : types.includes('oob') && (input.oob_channel === undefined || input.oob_channel === record.type),
      );
      if (!chosen) throw new UnsupportedChallengeType('The user has no authenticator of the requested challenge type.');
      if (chosen.type === 'otp') return { challenge_type: 'otp' as const };
      return { challenge_type: 'oob' as const, oob_code: await sendCode(read, chosen, origin), binding_method: 'prompt' as const };
    },

    /** mfa-otp: a TOTP code of one of the user's authenticators (a pending one is confirmed by it). */
    async checkOtp(read: ReadMfaToken, otp: string, origin: Origin): Promise<AuthenticatorRecord> {
      for (const record of (await usable(read.data.userId)).filter((candidate) => candidate.type === 'otp')) {
        if (await authenticators.checkTotp(record, otp)) return record;
      }
      return wrongCode(read, origin, new WrongMfaCode('Invalid otp_code.'), 'gd_auth_failed');
    },

    /** mfa-oob: the code sent with `oob_code` (to this token's sign-in), once. */
    async checkOob(read: ReadMfaToken, oobCode: string, bindingCode: string, origin: Origin): Promise<AuthenticatorRecord> {
      return this.checkOobStored(read, this.oobId(oobCode), bindingCode, origin);
    },

    /** The stored id of an oob code (the hosted MFA screens keep only it). */
    oobId: (oobCode: string) => handleId(deps.handleKey, oobCode),

    /** `checkOob` by the stored id of the oob code. */
    async checkOobStored(read: ReadMfaToken, id: string, bindingCode: string, origin: Origin): Promise<AuthenticatorRecord> {
      const challenge = await storage.artifacts.get<OobChallenge>(tenantId, 'mfa_oob', id);
      if (!challenge || challenge.consumedAt !== null || challenge.expiresAt <= at() || challenge.data.tokenId !== read.id) throw new WrongMfaCode('Invalid oob_code.');
      if (!safeEqual(challenge.data.codeHash, bindingHash(bindingCode))) {
        // Past the limit the sent code is spent too.
        if (challenge.data.failures + 1 >= MFA_MAX_FAILURES) await storage.artifacts.consume(tenantId, 'mfa_oob', id, at());
        else await storage.artifacts.swap(tenantId, 'mfa_oob', id, challenge.data, { ...challenge.data, failures: challenge.data.failures + 1 }, at());
        return wrongCode(read, origin, new WrongMfaCode('Invalid binding_code.'), 'gd_auth_failed');
      }
      if (!(await storage.artifacts.consume(tenantId, 'mfa_oob', id, at()))) throw new WrongMfaCode('Invalid oob_code.');
      const record = await authenticators.get(challenge.data.authenticatorId);
      if (!record || record.userId !== read.data.userId) throw new WrongMfaCode('Invalid oob_code.');
      await authenticators.touched(record);
      return record;
    },

    /** mfa-recovery-code: spends the code and answers the user's next one. */
    async useRecoveryCode(read: ReadMfaToken, code: string, origin: Origin): Promise<string> {
      const spent = await authenticators.spendRecoveryCode(read.data.userId, code);
      if (!spent) return wrongCode(read, origin, new WrongMfaCode('Invalid recovery_code.'), 'gd_recovery_failed');
      deps.events.record({ type: 'gd_recovery_succeed', user_id: read.data.userId, client_id: read.data.clientId, ip: origin.ip });
      return (await authenticators.newRecoveryCode(read.data.userId, 'confirmed', { client_id: read.data.clientId, ip: origin.ip })).code;
    },
  };
}

export type MfaApi = ReturnType<typeof mfaApi>;
