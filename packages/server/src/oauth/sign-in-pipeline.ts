import type { CachedClient } from '../services/config-cache.js';
import type { RequestOrigin } from '../services/events/event.js';
import type { Storage } from '../storage/storage.js';
import type { AuthorizeRequest } from './authorize/request.js';
import type { ConsentNeed } from './consent.js';
import { AccessDenied, ActionFailed, BlockedUser, type OAuthError } from './errors.js';
import type { TokenChanges } from './action-claims.js';
import { recordedAlready } from './grants/recorded-refusals.js';

/**
 * The stages every sign-in passes, in this order, after its credentials are verified (a password, a one-time
 * code, an upstream provider's answer, a login ticket, a refresh token). Each way of signing in verifies its own
 * credentials, then hands the user to `SignInPipeline.run`, which runs these stages. A feature that applies to
 * every sign-in (multi-factor, Actions, organizations, the tenant log) is one check added to one stage.
 *
 * - `credentials-verified`: the first stage, before any other check (the path verified them just before).
 * - `account-checks`: the account may sign in (it exists and is not blocked). Brute-force protection and
 *   breached-password detection are part of verifying a password (they need the password and are serialised
 *   with it), so they run before the pipeline, in services/database-login.ts.
 * - `multi-factor`: whether a second factor is required (oauth/mfa/requirement.ts: the tenant's policy, or
 *   `acr_values` asking for it). The token endpoint's sign-ins are refused with `mfa-required` (the path answers
 *   the platform's `mfa_required` with an mfa_token, and the MFA grants run the stages again with `mfa` in `amr`);
 *   a browser sign-in stops before its session and goes to the hosted MFA screens (oauth/mfa/browser-mfa.ts), which
 *   resume it with the factor in `amr`. A post-login Action's `api.multifactor.enable` requires it too (refused
 *   in the `post-login-actions` stage the same way).
 * - `post-login-actions`: the tenant's post-login Actions (oauth/post-login-actions.ts). The token endpoint's
 *   sign-ins run them here; a browser sign-in runs them where its authorization is answered, after the screens
 *   that may come first (consent, the organization), and only then gets its code (`decisions.postLoginPending`).
 * - `organization-membership`: a login to an organization needs a member, or makes one (oauth/organization-login.ts);
 *   a client whose users choose their organization after logging in decides so here (`decisions.pickOrganization`).
 * - `consent`: a browser sign-in answering an authorization request finds out whether the user must first consent
 *   to what the application asks (oauth/consent.ts); it refuses nothing, it decides (`decisions.consent`), and the
 *   path's `session-and-tokens` stage then starts the session without a code and shows the consent screen.
 * - `session-and-tokens`: the path's own ending (an SSO session with its code or SAML answer, or tokens).
 * - `event-recorded`: after the session or tokens exist: the tenant log's success event (oauth/sign-in-events.ts).
 */
export const SIGN_IN_STAGES = [
  'credentials-verified',
  'account-checks',
  'multi-factor',
  'post-login-actions',
  'organization-membership',
  'consent',
  'session-and-tokens',
  'event-recorded',
] as const;
export type SignInStage = (typeof SIGN_IN_STAGES)[number];

/** Every way a user signs in, browser and token endpoint alike. */
export const SIGN_IN_PATHS = [
  /** The hosted login page's password form. */
  'login-page',
  /** The hosted signup page (signs the new user in). */
  'signup-page',
  /** `/authorize?login_ticket=` after `/co/authenticate` (cross-origin login, password or one-time code). */
  'cross-origin-ticket',
  /** `/passwordless/verify_redirect` (a magic link or a code sent through the browser). */
  'passwordless-link',
  /** `/login/callback` after an upstream OpenID Connect or OAuth 2.0 provider. */
  'upstream-oauth',
  /** `/login/callback` with a SAML response to a login of ours. */
  'upstream-saml',
  /** `/login/callback` with a SAML response no login asked for. */
  'idp-initiated-saml',
  'password-grant',
  'password-realm-grant',
  'passwordless-otp-grant',
  'refresh-token-grant',
] as const;
export type SignInPath = (typeof SIGN_IN_PATHS)[number];

const ALL_STAGES: readonly SignInStage[] = SIGN_IN_STAGES;
/** The token endpoint has no page to ask for consent on: its grants pass every stage but that one. */
const TOKEN_ENDPOINT_STAGES = SIGN_IN_STAGES.filter((stage) => stage !== 'consent');
/**
 * A refresh continues a sign-in that passed every stage: the account is checked again and post-login Actions
 * run again (as the platform runs them on refresh), but no second factor, membership or consent is asked for.
 */
const REFRESH_STAGES: readonly SignInStage[] = ['credentials-verified', 'account-checks', 'post-login-actions', 'session-and-tokens', 'event-recorded'];

/** Which stages each path passes. */
export const PATH_STAGES: Readonly<Record<SignInPath, readonly SignInStage[]>> = {
  'login-page': ALL_STAGES,
  'signup-page': ALL_STAGES,
  'cross-origin-ticket': ALL_STAGES,
  'passwordless-link': ALL_STAGES,
  'upstream-oauth': ALL_STAGES,
  'upstream-saml': ALL_STAGES,
  'idp-initiated-saml': ALL_STAGES,
  'password-grant': TOKEN_ENDPOINT_STAGES,
  'password-realm-grant': TOKEN_ENDPOINT_STAGES,
  'passwordless-otp-grant': TOKEN_ENDPOINT_STAGES,
  'refresh-token-grant': REFRESH_STAGES,
};

/** Why a stage turned a sign-in down. */
export type SignInRefusal = (
  | { reason: 'blocked' }
  | { reason: 'denied'; description: string }
  | { reason: 'action-failed'; description: string }
  /** A second factor is required and `amr` has none: the token endpoint answers `mfa_required`. */
  | { reason: 'mfa-required' }
  /**
   * Not a refusal but a stop: a browser login with a password is offered a passkey first (oauth/passkey-enrollment.ts),
   * and resumes with `passkeyEnrollmentSettled`. Only paths with a page ask for it.
   */
  | { reason: 'passkey-enrollment' }
) & {
  /** The stage logged the refusal itself (with what only it knows): the surface must not log it again. */
  recorded?: boolean;
};

/**
 * What a surface without a page for the second factor and without `mfa_required` answers a sign-in that needs one
 * with (browser sign-ins go to the MFA screens, the token endpoint answers `mfa_required`).
 */
export const MFA_REQUIRED = 'Multifactor authentication required';

/** What a surface without the passkey-enrollment screen answers its stop with (no such path asks for it). */
const PASSKEY_ENROLLMENT_ELSEWHERE = 'A passkey can only be created on the hosted login pages.';

/** A user whose credentials were verified, on their way through the stages. */
export interface SignInAttempt {
  path: SignInPath;
  clientId: string;
  userId: string;
  /** The connection that verified the credentials; undefined on a refresh (its chain does not record it). */
  connection: string | undefined;
  amr: readonly string[];
  /** `acr_values` of the request, where the path has them (the multi-factor stage reads them). */
  acrValues?: string | undefined;
  /** The account as the credential check left it, when it read it (saves the account check a read, the log a name). */
  account?: { blocked?: boolean | undefined; email?: string | undefined; username?: string | undefined } | undefined;
  /** Where the request came from (the `event-recorded` stage logs it). */
  origin: RequestOrigin;
  /** The API and scopes the sign-in asked for, where the path has them (logged with the event). */
  audience?: string | undefined;
  scope?: string | undefined;
  /** A browser sign-in's authorization request and its application (the consent stage reads them). */
  authorization?: { request: AuthorizeRequest; client: CachedClient } | undefined;
  /** What stages decided for the path's `session-and-tokens` stage to act on; `run` provides it. */
  decisions?: SignInDecisions;
  /** The user answered the passkey offered after their password in this login (created one or declined): not offered again. */
  passkeyEnrollmentSettled?: boolean;
  /** The error this path answers a refusal with (each surface has its own error family). */
  refuse(refusal: SignInRefusal): Error | Promise<Error>;
}

/** What stages decide rather than refuse. */
export interface SignInDecisions {
  /** The consent to ask for before the application is answered. */
  consent?: ConsentNeed;
  /** The user chooses among their organizations before the application is answered. */
  pickOrganization?: boolean;
  /** The user's role names, once a stage read them (`roleNames`). */
  roleNames?: string[];
  /** What post-login Actions changed in the tokens (the token endpoint's sign-ins apply it to what they issue). */
  tokenChanges?: TokenChanges;
  /**
   * A browser sign-in whose post-login Actions run where its authorization is answered (authorize/flow.ts
   * `completeAuthorization`, after the consent and organization screens): the session starts, the code waits.
   */
  postLoginPending?: boolean;
  /** A second factor is required, and why (`policy`, `acr_values`, `action`). */
  multiFactor?: { reasons: string[] };
}

/** A check of one stage: resolves to a refusal to turn the sign-in down, or to nothing to let it go on. */
export type StageCheck = (attempt: Readonly<SignInAttempt>) => Promise<SignInRefusal | void>;

export interface SignInPipelineDeps {
  storage: Storage;
  tenantId: string;
}

/** The OAuth answer to a refusal: `blocked` keeps the path's own wording, a denial is `access_denied`. */
export function oauthRefusal(blocked: () => OAuthError = () => new BlockedUser()) {
  return (refusal: SignInRefusal): OAuthError => {
    const error =
      refusal.reason === 'blocked'
        ? blocked()
        : refusal.reason === 'action-failed'
          ? new ActionFailed(refusal.description)
          : new AccessDenied(refusal.reason === 'mfa-required' ? MFA_REQUIRED : refusal.reason === 'passkey-enrollment' ? PASSKEY_ENROLLMENT_ELSEWHERE : refusal.description);
    return refusal.recorded ? recordedAlready(error) : error;
  };
}

export function signInPipeline(deps: SignInPipelineDeps) {
  const checks = new Map<SignInStage, StageCheck[]>(SIGN_IN_STAGES.map((stage) => [stage, []]));

  const accountChecks: StageCheck = async (attempt) => {
    const account = attempt.account ?? (await deps.storage.users.get(deps.tenantId, attempt.userId))?.data;
    if (!account || account.blocked) return { reason: 'blocked' };
  };
  checks.get('account-checks')?.push(accountChecks);

  async function runStage(stage: SignInStage, attempt: SignInAttempt): Promise<void> {
    for (const check of checks.get(stage) ?? []) {
      const refusal = await check(attempt);
      if (refusal) throw await attempt.refuse(refusal);
    }
  }

  return {
    /**
     * The names of the signing-in user's roles, read when a stage asks (the platform's `event.authorization.roles`
     * of post-login Actions), once per sign-in.
     */
    async roleNames(attempt: SignInAttempt): Promise<string[]> {
      attempt.decisions ??= {};
      attempt.decisions.roleNames ??= await deps.storage.roles.roleNamesOfUser(deps.tenantId, attempt.userId);
      return attempt.decisions.roleNames;
    },

    /** Adds a check to a stage; it runs after the stage's earlier checks, on every path that passes the stage. */
    use(stage: SignInStage, check: StageCheck): void {
      checks.get(stage)?.push(check);
    },

    /**
     * Runs the stages of `attempt.path` in order; `finish` is the path's `session-and-tokens` stage. A refusal
     * throws the path's error before anything is issued. `finish` may answer undefined (nothing was left to spend:
     * a login completed twice), and then no later stage runs.
     */
    async run<T>(attempt: SignInAttempt, finish: () => Promise<T>): Promise<T> {
      attempt.decisions ??= {};
      let finished: T | undefined;
      let done = false;
      for (const stage of PATH_STAGES[attempt.path]) {
        if (stage === 'session-and-tokens') {
          finished = await finish();
          done = true;
          if (finished === undefined) return finished as T;
        } else {
          await runStage(stage, attempt);
        }
      }
      if (!done) throw new Error(`The sign-in path '${attempt.path}' has no session-and-tokens stage.`);
      return finished as T;
    },
  };
}

export type SignInPipeline = ReturnType<typeof signInPipeline>;
