import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { safeEqual } from '../../crypto/handles.js';
import { randomId } from '../../crypto/random.js';
import type { AuthenticatorRecord } from '../../storage/repositories/authenticators.js';
import type { Storage } from '../../storage/storage.js';
import type { NewLogEvent } from '../events/event.js';
import type { EventRecorder } from '../events/recorder.js';
import { publicId } from './authenticators.js';
import {
  amrOf,
  isWebAuthnKind,
  preferredTypeOf,
  requiresUserVerification,
  selectionOf,
  userHandleOf,
  WEBAUTHN_KINDS,
  type RelyingParty,
  type WebAuthnKind,
} from './webauthn-policy.js';

export { relyingPartyOf, WEBAUTHN_KINDS, type RelyingParty, type WebAuthnKind } from './webauthn-policy.js';

/**
 * WebAuthn credentials (security keys, platform authenticators, passkeys) as a user's authenticators, for the
 * hosted pages and the MFA API: the options a browser's `navigator.credentials.create/get` takes, and the
 * verification of what it answers (@simplewebauthn/server checks origin, RP ID, challenge and signature).
 *
 * Challenges are not kept here: each options call answers its challenge, and the caller keeps it where the
 * ceremony already has state (the login transaction of the hosted pages, the mfa_token of the MFA API) and
 * passes it back once. That state is bound to the browser or client and spent when the step completes, which is
 * exactly the single use a challenge needs; a store of our own would duplicate it with a second expiry and
 * sweeper. A caller must therefore drop the challenge once it was tried, successful or not.
 *
 * A bad credential is an answer, not an exception: every verification answers `{ ok: false, reason }`.
 * Sign-in events (`gd_auth_succeed`, `s`) are the caller's to log, as it knows the client and the step.
 */
export interface WebAuthnDeps {
  storage: Storage;
  tenantId: string;
  events: EventRecorder;
  relyingParty: RelyingParty;
  now: () => Date;
}

/** The user a credential is created for; `name` is what the authenticator shows (an e-mail or user name). */
export interface WebAuthnUser {
  id: string;
  name: string;
  displayName?: string | undefined;
}

/** Why a credential was refused. */
export type WebAuthnRefusal =
  /** The response does not verify: wrong origin, RP ID, challenge, signature, or user verification missing. */
  | 'invalid_response'
  /** The credential is enrolled already (by this user or another). */
  | 'credential_exists'
  /** No authenticator holds the credential (or it is not confirmed). */
  | 'unknown_credential'
  /** The credential is someone else's, or of a kind not allowed here (a second factor cannot sign in alone). */
  | 'credential_not_allowed'
  /** replay: the signature counter did not increase (a replayed assertion, or a cloned authenticator). */
  | 'counter_replayed';

export type Refused = { ok: false; reason: WebAuthnRefusal; detail?: string };

export interface Ceremony<Options> {
  options: Options;
  /** The challenge to keep, and to pass back to the verification (once). */
  challenge: string;
}

export interface Registration {
  userId: string;
  kind: WebAuthnKind;
  expectedChallenge: string;
  response: RegistrationResponseJSON;
  name?: string | undefined;
  /** The request's ip, user agent, client, for the log. */
  origin?: Partial<NewLogEvent> | undefined;
}

export interface Authentication {
  expectedChallenge: string;
  response: AuthenticationResponseJSON;
  /** The user who must own the credential (a second factor); omitted for a passkey sign-in. */
  userId?: string | undefined;
  /** The kinds accepted: by default every kind with a user, only passkeys without one. */
  kinds?: readonly WebAuthnKind[] | undefined;
}

export type Authenticated = { ok: true; userId: string; record: AuthenticatorRecord; amr: string[]; userVerified: boolean };

const transportsOf = (record: AuthenticatorRecord): string[] | undefined => (Array.isArray(record.data.transports) ? (record.data.transports as string[]) : undefined);
const credentialsOf = (records: readonly AuthenticatorRecord[]) =>
  records.flatMap((record) => (record.credentialId !== null && isWebAuthnKind(record.type) ? [{ record, id: record.credentialId, transports: transportsOf(record) }] : []));
const descriptor = (credential: { id: string; transports: string[] | undefined }) => ({ id: credential.id, ...(credential.transports ? { transports: credential.transports } : {}) });
const refused = (reason: WebAuthnRefusal, detail?: string): Refused => ({ ok: false, reason, ...(detail !== undefined ? { detail } : {}) });

export function webauthn(deps: WebAuthnDeps) {
  const { storage, tenantId, relyingParty } = deps;
  const at = () => deps.now().toISOString();
  const confirmedCredentials = async (userId: string, kinds: readonly WebAuthnKind[]) =>
    credentialsOf(await storage.authenticators.listOfUser(tenantId, userId)).filter(({ record }) => record.status === 'confirmed' && kinds.includes(record.type as WebAuthnKind));

  /**
   * Verifies a created credential: the authenticator it would be (confirmed), not yet enrolled. A passkey signup
   * verifies the credential before the account it is for exists, then creates both.
   */
  async function checkRegistration(input: Registration): Promise<{ ok: true; record: AuthenticatorRecord } | Refused> {
    let info;
    try {
      const verified = await verifyRegistrationResponse({
        response: input.response,
        expectedChallenge: input.expectedChallenge,
        expectedOrigin: relyingParty.origin,
        expectedRPID: relyingParty.id,
        requireUserVerification: requiresUserVerification(input.kind),
      });
      if (!verified.verified) return refused('invalid_response');
      info = verified.registrationInfo;
    } catch (error) {
      return refused('invalid_response', (error as Error).message);
    }
    const createdAt = at();
    const record: AuthenticatorRecord = {
      id: `dev_${randomId(16)}`,
      userId: input.userId,
      type: input.kind,
      status: 'confirmed',
      name: input.name ?? null,
      phoneNumber: null,
      email: null,
      secretSealed: null,
      codeHash: null,
      lastStep: null,
      credentialId: info.credential.id,
      signCount: info.credential.counter,
      data: {
        publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
        ...(info.credential.transports ? { transports: info.credential.transports } : {}),
        aaguid: info.aaguid,
        deviceType: info.credentialDeviceType,
        backedUp: info.credentialBackedUp,
        userVerified: info.userVerified,
      },
      createdAt,
      enrolledAt: createdAt,
      lastAuthAt: null,
    };
    return { ok: true, record };
  }

  /** Enrolls a verified credential (checkRegistration's record): logged as `gd_enrollment_complete`. */
  async function enroll(record: AuthenticatorRecord, origin?: Partial<NewLogEvent>): Promise<{ ok: true; record: AuthenticatorRecord } | Refused> {
    try {
      await storage.authenticators.insert(tenantId, record);
    } catch (error) {
      // The unique index on the credential id decides, also between two racing enrollments of one key.
      if (storage.isUniqueViolation(error)) return refused('credential_exists');
      throw error;
    }
    deps.events.record({ ...origin, type: 'gd_enrollment_complete', user_id: record.userId, details: { authenticator_type: record.type, id: publicId(record) } });
    return { ok: true, record };
  }

  return {
    relyingParty,
    checkRegistration,
    enroll,

    /** Options to create a credential of this kind; the user's existing credentials (of any kind) are excluded. */
    async registrationOptions(user: WebAuthnUser, kind: WebAuthnKind): Promise<Ceremony<PublicKeyCredentialCreationOptionsJSON>> {
      const existing = credentialsOf(await storage.authenticators.listOfUser(tenantId, user.id));
      const preferred = preferredTypeOf(kind);
      const options = await generateRegistrationOptions({
        rpName: relyingParty.name,
        rpID: relyingParty.id,
        userName: user.name,
        userID: userHandleOf(user.id),
        userDisplayName: user.displayName ?? user.name,
        attestationType: 'none',
        excludeCredentials: existing.map(descriptor),
        authenticatorSelection: selectionOf(kind),
        ...(preferred ? { preferredAuthenticatorType: preferred } : {}),
      });
      return { options, challenge: options.challenge };
    },

    /** Verifies a created credential and enrolls it (confirmed): the new authenticator, or why not. */
    async verifyRegistration(input: Registration): Promise<{ ok: true; record: AuthenticatorRecord } | Refused> {
      const checked = await checkRegistration(input);
      return checked.ok ? enroll(checked.record, input.origin) : checked;
    },

    /**
     * Options to prove a credential: the user's confirmed credentials of these kinds, or with no user (a passkey
     * sign-in) none, so that the browser offers the discoverable credentials it holds for this RP.
     */
    async authenticationOptions(userId?: string, kinds: readonly WebAuthnKind[] = WEBAUTHN_KINDS): Promise<Ceremony<PublicKeyCredentialRequestOptionsJSON>> {
      const allowed = userId === undefined ? [] : await confirmedCredentials(userId, kinds);
      const options = await generateAuthenticationOptions({
        rpID: relyingParty.id,
        allowCredentials: allowed.map(descriptor),
        // Asked when every credential offered needs it; otherwise each record's kind decides at verification.
        userVerification: allowed.length > 0 && allowed.every(({ record }) => requiresUserVerification(record.type as WebAuthnKind)) ? 'required' : 'preferred',
      });
      return { options, challenge: options.challenge };
    },

    /** Verifies an assertion and records its counter: the user it proves and the `amr`, or why not. */
    async verifyAuthentication(input: Authentication): Promise<Authenticated | Refused> {
      const credentialId = typeof input.response?.id === 'string' ? input.response.id : '';
      const record = credentialId === '' ? undefined : await storage.authenticators.getByCredentialId(tenantId, credentialId);
      if (!record || record.status !== 'confirmed' || !isWebAuthnKind(record.type) || typeof record.data.publicKey !== 'string') return refused('unknown_credential');
      const kinds = input.kinds ?? (input.userId === undefined ? ['passkey'] : WEBAUTHN_KINDS);
      if ((input.userId !== undefined && record.userId !== input.userId) || !kinds.includes(record.type)) return refused('credential_not_allowed');
      // binding: a discoverable credential names its user; it must be the one the credential was enrolled for.
      const userHandle = input.response.response?.userHandle;
      if (typeof userHandle === 'string' && !safeEqual(userHandle, Buffer.from(userHandleOf(record.userId)).toString('base64url'))) return refused('credential_not_allowed');
      const stored = record.signCount ?? 0;
      let info;
      try {
        const verified = await verifyAuthenticationResponse({
          response: input.response,
          expectedChallenge: input.expectedChallenge,
          expectedOrigin: relyingParty.origin,
          expectedRPID: relyingParty.id,
          // The counter is checked below, by us, so that a replay is told apart from a bad signature.
          credential: { id: record.credentialId ?? credentialId, publicKey: Buffer.from(record.data.publicKey, 'base64url'), counter: 0, ...(transportsOf(record) ? { transports: transportsOf(record) } : {}) },
          requireUserVerification: requiresUserVerification(record.type),
        });
        if (!verified.verified) return refused('invalid_response');
        info = verified.authenticationInfo;
      } catch (error) {
        return refused('invalid_response', (error as Error).message);
      }
      // replay: a counting authenticator must show a higher counter than any accepted before; the conditional
      // update makes that hold between two requests racing with the same assertion too.
      if ((stored > 0 || info.newCounter > 0) && info.newCounter <= stored) return refused('counter_replayed');
      const usedAt = at();
      if (!(await storage.authenticators.useSignCount(tenantId, record.id, info.newCounter, usedAt))) return refused('counter_replayed');
      let current = record;
      if (record.data.backedUp !== info.credentialBackedUp) {
        // A device-bound credential can become synced (or the reverse): the amr follows.
        const data = { ...record.data, backedUp: info.credentialBackedUp, deviceType: info.credentialDeviceType };
        await storage.authenticators.update(tenantId, record.id, { data });
        current = { ...record, data };
      }
      current = { ...current, signCount: info.newCounter > 0 ? info.newCounter : stored, lastAuthAt: usedAt };
      return { ok: true, userId: record.userId, record: current, amr: amrOf(current), userVerified: info.userVerified };
    },
  };
}

export type WebAuthn = ReturnType<typeof webauthn>;
