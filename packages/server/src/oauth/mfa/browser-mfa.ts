import type { WebAuthnKind } from '../../services/mfa/webauthn.js';
import type { TokenChanges } from '../action-claims.js';
import { AccessDenied } from '../errors.js';
import { oauthRefusal, type SignInPath, type SignInRefusal } from '../sign-in-pipeline.js';

/** The sign-ins that happen in a browser: a second factor is asked for on the hosted MFA screens. */
export type BrowserSignInPath = Extract<
  SignInPath,
  'login-page' | 'signup-page' | 'cross-origin-ticket' | 'passwordless-link' | 'upstream-oauth' | 'upstream-saml' | 'idp-initiated-saml'
>;

/**
 * A browser sign-in stopped at the `multi-factor` stage: no session or code exists yet, and the path answers with
 * the MFA screens instead of the application (the token endpoint answers `mfa_required` instead).
 */
export class SecondFactorNeeded extends Error {
  constructor() {
    super('A second factor is required before this sign-in goes on.');
  }
}

/**
 * A browser login with a password stopped at the `multi-factor` stage, after its second factor if it needed one: the
 * user is offered a passkey (the passkey-enrollment screen) before the sign-in goes on.
 */
export class PasskeyEnrollmentOffered extends Error {
  constructor() {
    super('A passkey is offered before this sign-in goes on.');
  }
}

/**
 * What a browser sign-in answers a refusal with: the MFA screens for a missing second factor, passkey-enrollment for
 * a passkey offered, else the OAuth error.
 */
export function browserRefusal(refusal: SignInRefusal): Error {
  if (refusal.reason === 'mfa-required') return new SecondFactorNeeded();
  if (refusal.reason === 'passkey-enrollment') return new PasskeyEnrollmentOffered();
  return oauthRefusal(() => new AccessDenied('user is blocked'))(refusal);
}


/**
 * What a login transaction holds while its user gives a second factor on the hosted MFA screens. The first factor
 * is proved: the sign-in resumes with the second one added to `amr`, without asking for the first again.
 */
export interface BrowserMfa {
  userId: string;
  connection: string;
  /** How the user authenticated so far (e.g. `pwd`). */
  amr: string[];
  /** The sign-in that stopped at the multi-factor stage: it runs its stages again once the factor is proved. */
  path: BrowserSignInPath;
  /**
   * The user is signed in already (an SSO session without the factor a new request asks for, or a post-login
   * Action's `api.multifactor.enable`): the factor is added to that session (its `sid`) instead of starting one.
   */
  sid?: string;
  /** The post-login Actions ran already (one of them asked for the factor): their token changes, not run twice. */
  actions?: { changes?: TokenChanges | undefined };
  /**
   * The stored id of the mfa token behind the screens: the MFA API's checks count wrong codes on it, it expires
   * with it and is spent once. The token itself is never given out.
   */
  tokenId: string;
  /** A code sent by SMS or e-mail on the current challenge (the stored id of its oob code). */
  sent?: { oobId: string; authenticatorId: string };
  /** The authenticator being enrolled (pending until its first code or credential proves it). */
  enrolling?: { authenticatorId: string; type: 'otp' | 'sms' | 'email' };
  /** The WebAuthn challenge of the screen shown, and what it was for. */
  webauthn?: { challenge: string; kind: WebAuthnKind; enroll: boolean };
  /** The second factor is proved (its `amr`); a recovery code is still to be shown before the sign-in goes on. */
  proved?: string[];
  /** The user asked to be remembered in this browser when the factor was proved. */
  remember?: boolean;
}
