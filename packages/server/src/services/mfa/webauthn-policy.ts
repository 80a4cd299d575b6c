import { createHash } from 'node:crypto';
import type { AuthenticatorSelectionCriteria } from '@simplewebauthn/server';
import type { AuthenticatorRecord } from '../../storage/repositories/authenticators.js';

/** The authenticator types that hold a WebAuthn credential. */
export type WebAuthnKind = 'webauthn-roaming' | 'webauthn-platform' | 'passkey';
export const WEBAUTHN_KINDS: readonly WebAuthnKind[] = ['webauthn-roaming', 'webauthn-platform', 'passkey'];

export const isWebAuthnKind = (type: string): type is WebAuthnKind => (WEBAUTHN_KINDS as readonly string[]).includes(type);

/** Who the credentials are for: the browser binds each credential to `id` and refuses any other origin. */
export interface RelyingParty {
  /** The RP ID: the issuer's host name. */
  id: string;
  /** Shown by the browser while creating a credential. */
  name: string;
  /** The origin the ceremonies run on (the hosted pages'). */
  origin: string;
}

/** The relying party of a tenant: its issuer's host and origin, named by its friendly name. */
export function relyingPartyOf(issuer: string, friendlyName?: string): RelyingParty {
  const url = new URL(issuer);
  return { id: url.hostname, name: friendlyName?.trim() || 'Latchkey', origin: url.origin };
}

/**
 * What each kind asks of the authenticator when it is created:
 * - a security key (roaming) is a second factor: a touch proves possession, so user verification is not asked;
 * - a platform authenticator is enrolled for its biometric or device PIN, so verification is required;
 * - a passkey signs in without a user name, so it must be discoverable (resident) on any kind of device;
 *   verification is preferred, not required, so that keys without a PIN still work (the result says whether it
 *   happened, for the caller's policy).
 */
export function selectionOf(kind: WebAuthnKind): AuthenticatorSelectionCriteria {
  switch (kind) {
    case 'webauthn-roaming':
      return { authenticatorAttachment: 'cross-platform', residentKey: 'discouraged', userVerification: 'discouraged' };
    case 'webauthn-platform':
      return { authenticatorAttachment: 'platform', residentKey: 'discouraged', userVerification: 'required' };
    case 'passkey':
      return { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' };
  }
}

/** Browser hints (WebAuthn L3) that steer the browser's dialog towards the kind's device. */
export const preferredTypeOf = (kind: WebAuthnKind) => (kind === 'webauthn-roaming' ? 'securityKey' : kind === 'webauthn-platform' ? 'localDevice' : undefined);

/** A platform authenticator was enrolled for its verification, and must show it at every use. */
export const requiresUserVerification = (kind: WebAuthnKind) => kind === 'webauthn-platform';

/**
 * The user handle the credential is bound to: a digest of the user id rather than the id itself, so that it has a
 * fixed length (WebAuthn allows at most 64 bytes, user ids of upstream connections can be longer) and shows the
 * authenticator no identifier it could display or leak. It is never read back to find the user (the credential
 * id does that), only compared.
 */
export const userHandleOf = (userId: string): Uint8Array<ArrayBuffer> => new Uint8Array(createHash('sha256').update(userId, 'utf8').digest());

/**
 * The `amr` (RFC 8176) a WebAuthn assertion proves: possession of a key. `hwk` (hardware-secured key) when the
 * credential is bound to its device, which is so for every security key and most platform authenticators;
 * `swk` (software-secured key) when the credential is backed up (a synced passkey): its private key leaves the
 * device's hardware for the sync provider's cloud. User verification adds no value here: RFC 8176 names its
 * method (`pin`, `fpt`, `face`) and WebAuthn does not tell which one was used; the result carries
 * `userVerified` for the caller's policy (whether a verified passkey counts as multi-factor is the pipeline's call).
 */
export const amrOf = (record: Pick<AuthenticatorRecord, 'data'>): string[] => [record.data.backedUp === true ? 'swk' : 'hwk'];
