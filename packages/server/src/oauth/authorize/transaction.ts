import { hmacSha256 } from '../../crypto/deployment-secret.js';
import { handleId, newHandle, safeEqual } from '../../crypto/handles.js';
import { randomId } from '../../crypto/random.js';
import type { Repositories } from '../../storage/repositories/index.js';
import type { Storage } from '../../storage/storage.js';
import type { AuthorizeRequest } from './request.js';
import type { TokenChanges } from '../action-claims.js';
import type { BrowserMfa, BrowserSignInPath } from '../mfa/browser-mfa.js';

/** How long a user may take on the hosted pages before the login must start again. */
export const TRANSACTION_SECONDS = 3600;

/**
 * A login transaction: the authorization request waiting for the user to authenticate on the hosted pages.
 * Its public id travels in page URLs (`state`); its secret handle only in an HttpOnly cookie named after the
 * public id, so that several tabs can log in at once, and a page that posts without that browser's cookie
 * (login CSRF, a copied URL) finds nothing.
 */
export interface LoginTransaction {
  publicId: string;
  request: AuthorizeRequest;
  /** Values the user submitted last, to prefill the form again (never the password). */
  lastUsername?: string;
  /** Identifier first: what the user entered on `login-id`, the account the password or code is for. */
  identifier?: string;
  /** A one-time code sent from `login-id` through a passwordless connection, and where it went. */
  passwordless?: { connection: string; strategy: 'email' | 'sms'; address: string };
  /** What the user entered on `signup-id`, the account `signup-password` creates. */
  signupIdentifiers?: { email: string; username?: string };
  /** While the user is at an upstream provider: the connection and what its answer must match. */
  upstream?: { connection: string; nonce: string; codeVerifier: string } | { connection: string; samlRequestId: string };
  /** A login for a SAML service provider (Latchkey as identity provider): where and how to answer it. */
  saml?: { acsUrl: string; requestId?: string; requestIssuer?: string; relayState?: string };
  /**
   * The user has signed in (the session `sid`) and must consent to `scopes` of `audience` before the application is
   * answered: the consent screen's transaction.
   */
  consent?: { userId: string; sid: string; audience: string; scopes: string[] };
  /** The user has signed in (the session `sid`) and chooses among their organizations before the answer. */
  organizationPicker?: { userId: string; sid: string };
  /**
   * A post-login Action sent the signed-in user elsewhere (`api.redirect.sendUserTo`); `/continue` resumes the
   * actions at `resumeAt` (that action's `onContinuePostLogin`, which must still be `actionId`), with the token
   * changes of the actions before it.
   */
  postLogin?: { userId: string; sid: string; amr: string[]; resumeAt: number; actionId: string; tokens?: TokenChanges };
  /** The user proved the first factor and gives a second one on the hosted MFA screens (http/login/mfa-screens.ts). */
  mfa?: BrowserMfa;
  /** The WebAuthn challenge of the passkey login offered on `login-id` (one for its button and its autofill). */
  passkeyLogin?: { challenge: string };
  /** The `passkey-enrollment` screen is waiting (http/login/passkey-screens.ts). */
  passkeyEnrollment?: PasskeyEnrollmentWait;
}

/**
 * Why the `passkey-enrollment` screen is shown, and its WebAuthn challenge once shown:
 * - `signup`: a signup with a passkey (after `signup-id`): the account does not exist yet, but its id is chosen
 *   here, as the credential is bound to it when it is created;
 * - `progressive`: a password login passed every check up to the multi-factor stage and the user is offered a
 *   passkey; the sign-in resumes (finishLogin) with what it had, whatever the user chooses.
 */
export type PasskeyEnrollmentWait = { challenge?: string } & (
  | { purpose: 'signup'; userId: string }
  | { purpose: 'progressive'; userId: string; connection: string; amr: string[]; path: BrowserSignInPath }
);

export interface TransactionDeps {
  storage: Storage;
  tenantId: string;
  handleKey: Buffer;
  now: () => Date;
}

export const transactionCookieName = (publicId: string) => `lk_tx_${publicId}`;

export function loginTransactions(deps: TransactionDeps) {
  const { storage, tenantId } = deps;
  const iso = () => deps.now().toISOString();
  const csrfKey = hmacSha256(deps.handleKey, 'login-csrf');

  return {
    /** `publicId` when the caller chose it before (a post-login Action's redirect carries it before it exists). */
    async create(
      request: AuthorizeRequest,
      extra: Pick<LoginTransaction, 'consent' | 'organizationPicker' | 'postLogin' | 'mfa' | 'saml'> & { publicId?: string } = {},
    ): Promise<{ handle: string; transaction: LoginTransaction }> {
      const handle = newHandle();
      const { publicId = randomId(24), ...waiting } = extra;
      const transaction: LoginTransaction = { publicId, request, ...waiting };
      const now = deps.now();
      await storage.artifacts.insert(tenantId, 'login_transaction', {
        id: handleId(deps.handleKey, handle),
        family: transaction.publicId,
        data: transaction,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + TRANSACTION_SECONDS * 1000).toISOString(),
      });
      return { handle, transaction };
    },

    /** The live transaction behind a cookie value, if it is the one the page names. */
    async find(publicId: string, handle: string | undefined): Promise<LoginTransaction | undefined> {
      if (!handle) return undefined;
      const artifact = await storage.artifacts.get<LoginTransaction>(tenantId, 'login_transaction', handleId(deps.handleKey, handle));
      if (!artifact || artifact.consumedAt !== null || artifact.expiresAt <= iso()) return undefined;
      return safeEqual(artifact.data.publicId, publicId) ? artifact.data : undefined;
    },

    async save(handle: string, transaction: LoginTransaction): Promise<void> {
      await storage.artifacts.update(tenantId, 'login_transaction', handleId(deps.handleKey, handle), transaction, iso());
    },

    /** Ends the transaction; only one concurrent completion wins. */
    async complete(handle: string, repos: Pick<Repositories, 'artifacts'> = storage): Promise<boolean> {
      return (await repos.artifacts.consume(tenantId, 'login_transaction', handleId(deps.handleKey, handle), iso())) !== undefined;
    },

    /** The CSRF token of the transaction's forms: derived from the secret handle, so only its browser can know it. */
    csrfToken(handle: string): string {
      return hmacSha256(csrfKey, handle).toString('base64url');
    },

    csrfValid(handle: string, token: string | undefined): boolean {
      return token !== undefined && safeEqual(this.csrfToken(handle), token);
    },
  };
}

export type LoginTransactions = ReturnType<typeof loginTransactions>;
