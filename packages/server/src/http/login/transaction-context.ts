import type { FastifyReply, FastifyRequest } from 'fastify';
import { answerLater, browserRefusal, completeAuthorization, errorAnswer, requested, type AuthorizeDeps } from '../../oauth/authorize/flow.js';
import { OAuthError } from '../../oauth/errors.js';
import { PasskeyEnrollmentOffered, SecondFactorNeeded, type BrowserSignInPath } from '../../oauth/mfa/browser-mfa.js';
import { pendingSecondFactor } from '../../oauth/authorize/second-factor.js';
import type { SignInAttempt, SignInDecisions } from '../../oauth/sign-in-pipeline.js';
import { startSession, type SignedInUser } from '../../oauth/authorize/sign-in.js';
import type { LoginTransaction } from '../../oauth/authorize/transaction.js';
import type { CachedClient } from '../../services/config-cache.js';
import type { Registry } from '../../registry.js';
import type { Session } from '../../services/sessions.js';
import type { ConnectionData } from '../../services/connections.js';
import { sendAnswer } from '../oauth/answer-pages.js';
import { sendAuthorizationStep } from './authorization-step.js';
import { usableConnections } from './organization-connections.js';
import { requestOrigin } from '../request-origin.js';
import { sendSamlAnswer } from '../oauth/saml-answer.js';
import { clearTransactionCookie, sessionHandle, setSessionCookie, transactionHandle } from './cookies.js';
import { sendErrorPage } from './pages.js';
import { screenInPlaceOf } from './entry.js';
import { MFA_ENTRY_PATH, screenReached, screenUrl, type TransactionScreen } from './screens.js';

/** A login transaction this browser holds, with its application. */
export interface OpenTransaction {
  handle: string;
  transaction: LoginTransaction;
  client: CachedClient;
  /** `?state=` for links between the hosted pages. */
  query: string;
}

export function authorizeDeps(registry: Registry): AuthorizeDeps {
  return {
    storage: registry.storage,
    tenantId: registry.tenantId,
    config: registry.oauthConfig,
    users: registry.userGrants,
    sessions: registry.sessions,
    transactions: registry.transactions,
    loginTickets: registry.loginTickets,
    upstream: registry.upstream,
    consents: registry.consents,
    organizations: registry.organizations,
    postLogin: registry.actionTriggers.postLogin,
  };
}

/** Waits until `page` is sent; undefined tells the caller that the request is answered. */
async function answered(page: Promise<FastifyReply> | FastifyReply): Promise<undefined> {
  await page;
  return undefined;
}

/**
 * The transaction this browser is in; undefined once the error page saying that the login must start again has
 * been sent (the route then returns the reply). The reply itself is not returned: it is thenable, so an async
 * function's promise resolves to what awaiting the reply gives, undefined, and the caller could not tell it apart.
 */
export async function openTransaction(registry: Registry, request: FastifyRequest, reply: FastifyReply, state: string): Promise<OpenTransaction | undefined> {
  const handle = transactionHandle(request, state);
  const transaction = handle ? await registry.transactions.find(state, handle) : undefined;
  const client = transaction ? await registry.oauthConfig.client(transaction.request.clientId) : undefined;
  if (!handle || !transaction || !client) {
    return answered(sendErrorPage(registry, reply, 400, 'invalid_request', 'This login has expired or was started in another browser. Go back to the application and start again.'));
  }
  return { handle, transaction, client, query: `?state=${encodeURIComponent(transaction.publicId)}` };
}

/** The database connection the pages authenticate against: the one the request names, or the client's first. */
export async function databaseConnection(registry: Registry, open: OpenTransaction): Promise<ConnectionData | undefined> {
  const enabled = await usableConnections(registry, open.transaction, await registry.userGrants.databaseLogin.connectionsFor(open.client.clientId));
  const wanted = open.transaction.request.connection;
  return wanted === undefined ? enabled[0] : enabled.find((connection) => connection.name === wanted);
}

export const noDatabaseConnection = (registry: Registry, reply: FastifyReply, client: CachedClient) =>
  sendErrorPage(registry, reply, 400, 'invalid_request', 'No database connection is enabled for this application.', client);

/** Whether a form post comes from a page of ours: a browser says where a post comes from in `Origin` and `Sec-Fetch-Site`. */
export function sameOrigin(registry: Registry, request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== new URL(registry.issuer).origin) return false;
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

/** Sends the browser to a screen of its transaction (one it may use, in place of the one it asked for). */
export const redirectToScreen = (reply: FastifyReply, screen: TransactionScreen, transaction: LoginTransaction) =>
  reply.header('cache-control', 'no-store').redirect(screenUrl(screen, transaction), 302);

/**
 * What every form post of a transaction's screen checks first: a well-formed body; the transaction its `state` names
 * (in the body as the platform's SDK sends it, or in the URL), held by this browser's transaction cookie; a post
 * from our own origin; and a screen the transaction has reached and that is part of its flow (no one-page login or
 * signup when it goes identifier first). This is the forgery protection: the cookie is SameSite=Lax, so another
 * site's form cannot send it, and a browser names the page a post comes from. When a check fails it sends the
 * answer and resolves to undefined.
 */
export async function openScreenPost(registry: Registry, request: FastifyRequest, reply: FastifyReply, screen: TransactionScreen | 'reset-password-request'): Promise<OpenTransaction | undefined> {
  if (request.validationError) return answered(sendErrorPage(registry, reply, 400, 'invalid_request', 'The form was not filled in as expected.'));
  const body = request.body as { state?: string } | undefined;
  const query = request.query as { state?: string } | undefined;
  const state = body?.state ?? query?.state;
  if (!state || (body?.state !== undefined && query?.state !== undefined && body.state !== query.state)) {
    return answered(sendErrorPage(registry, reply, 400, 'invalid_request', 'The form does not name its login (state).'));
  }
  const open = await openTransaction(registry, request, reply, state);
  if (!open) return undefined;
  if (!sameOrigin(registry, request)) return answered(formForged(registry, reply, open.client));
  if (!screenReached(screen, open.transaction)) return answered(redirectToScreen(reply, screen.startsWith('signup') ? 'signup-id' : 'login-id', open.transaction));
  // A one-page screen that is not part of this transaction's flow (identifier first): its post is not taken.
  const inPlace = await screenInPlaceOf(registry, screen, open.transaction);
  if (inPlace) return answered(redirectToScreen(reply, inPlace, open.transaction));
  const form = request.body as { action?: string; language?: string } | undefined;
  if (form?.action === 'change-language') return answered(changeLanguage(registry, request, reply, open, form.language));
  return open;
}

/**
 * `action=change-language` (the platform SDK's `changeLanguage`, on every screen): the rest of the login speaks
 * `language` (it goes first in the transaction's `ui_locales`, so the tenant's enabled locales still decide), and
 * the same screen is shown again.
 */
async function changeLanguage(registry: Registry, request: FastifyRequest, reply: FastifyReply, open: OpenTransaction, language: string | undefined) {
  const wanted = (language ?? '').trim();
  if (/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(wanted)) {
    const uiLocales = [wanted, ...(open.transaction.request.uiLocales ?? '').split(' ').filter((tag) => tag && tag !== wanted)].join(' ');
    await registry.transactions.save(open.handle, { ...open.transaction, request: { ...open.transaction.request, uiLocales } });
  }
  return reply.header('cache-control', 'no-store').redirect(request.url, 303);
}

export const formForged = (registry: Registry, reply: FastifyReply, client: CachedClient) =>
  sendErrorPage(registry, reply, 403, 'invalid_request', 'The form could not be verified. Go back to the application and start again.', client);

/** A login of a transaction that ends refused: the transaction ends, and the application gets the error. */
export async function refuseLogin(registry: Registry, reply: FastifyReply, open: OpenTransaction, error: OAuthError): Promise<FastifyReply> {
  await registry.transactions.complete(open.handle);
  clearTransactionCookie(registry, reply, open.transaction.publicId);
  const { responseMode, redirectUri, state } = open.transaction.request;
  return sendAnswer(reply, errorAnswer({ responseMode, redirectUri, state }, error));
}

/**
 * The user has authenticated: the sign-in stages, then end the transaction (once), replace any earlier session
 * with a new one, and answer the application in its response mode.
 */
export async function finishLogin(
  registry: Registry,
  request: FastifyRequest,
  reply: FastifyReply,
  open: OpenTransaction,
  signedIn: SignedInUser & { path: BrowserSignInPath; account?: SignInAttempt['account']; passkeyEnrollmentSettled?: boolean },
): Promise<FastifyReply> {
  // The transaction is spent in the commit that replaces the browser's earlier session and stores the code.
  const deps = authorizeDeps(registry);
  const { saml, request: authorization } = open.transaction;
  const user: SignedInUser = { userId: signedIn.userId, connection: signedIn.connection, amr: signedIn.amr };
  let created;
  const decisions: SignInDecisions = {};
  try {
    const attempt = {
      ...signedIn,
      clientId: open.client.clientId,
      refuse: browserRefusal,
      origin: requestOrigin(request),
      // A login for a SAML service provider is answered with a signed SAML response: no OAuth consent.
      ...(saml ? {} : { authorization: { request: authorization, client: open.client } }),
      decisions,
      ...requested(authorization),
    };
    created = await registry.userGrants.signIn.run(attempt, () =>
      startSession(deps, {
        client: open.client,
        // A login for a SAML service provider is answered with a signed SAML response, not a code.
        authorization: saml ? undefined : authorization,
        answerLater: answerLater(decisions),
        earlierSession: sessionHandle(request),
        origin: attempt.origin,
        user: async (repos) => ((await registry.transactions.complete(open.handle, repos)) ? user : undefined),
      }),
    );
  } catch (error) {
    if (error instanceof OAuthError) return refuseLogin(registry, reply, open, error);
    if (error instanceof SecondFactorNeeded) return askSecondFactor(registry, reply, open, user, signedIn.path);
    if (error instanceof PasskeyEnrollmentOffered) return offerPasskey(registry, reply, open, user, signedIn.path);
    throw error;
  }
  if (!created) {
    return sendErrorPage(registry, reply, 400, 'invalid_request', 'This login was already completed. Go back to the application.', open.client);
  }
  const { handle, session, issued } = created;
  clearTransactionCookie(registry, reply, open.transaction.publicId);
  await setSessionCookie(registry, reply, handle);
  if (saml) return sendSamlAnswer(registry, reply, open.client, saml, session);
  return sendAuthorizationStep(registry, reply, await completeAuthorization(authorization, open.client, session, deps, {
    issued,
    consent: decisions.consent,
    pickOrganization: decisions.pickOrganization,
    origin: requestOrigin(request),
    amr: signedIn.amr,
  }));
}

/**
 * The SSO session a screen after login is for (consent, the organization picker), if this browser still holds it:
 * another session in the same browser meanwhile (a login elsewhere) does not answer for it.
 */
export async function signedInSession(registry: Registry, request: FastifyRequest, who: { userId: string; sid: string } | undefined): Promise<Session | undefined> {
  const session = who && (await registry.sessions.find(sessionHandle(request)));
  return session && session.data.sid === who.sid && session.data.user_id === who.userId ? session : undefined;
}

/** The sign-in stopped for a second factor: the transaction waits for it on the MFA screens (mfa-screens.ts). */
async function askSecondFactor(registry: Registry, reply: FastifyReply, open: OpenTransaction, user: SignedInUser, path: BrowserSignInPath): Promise<FastifyReply> {
  const mfa = await pendingSecondFactor(registry.userGrants, open.transaction.request, user, path);
  await registry.transactions.save(open.handle, { ...open.transaction, mfa });
  return reply.header('cache-control', 'no-store').redirect(`${MFA_ENTRY_PATH}${open.query}`, 302);
}

/**
 * The sign-in stopped to offer a passkey (progressive enrollment): the transaction waits on passkey-enrollment
 * (passkey-screens.ts), which resumes it. A second factor, if one was needed, is behind the user by now.
 */
async function offerPasskey(registry: Registry, reply: FastifyReply, open: OpenTransaction, user: SignedInUser, path: BrowserSignInPath): Promise<FastifyReply> {
  const { mfa: _proved, ...transaction } = open.transaction;
  const passkeyEnrollment = { purpose: 'progressive' as const, userId: user.userId, connection: user.connection, amr: [...user.amr], path };
  await registry.transactions.save(open.handle, { ...transaction, passkeyEnrollment });
  return reply.header('cache-control', 'no-store').redirect(screenUrl('passkey-enrollment', open.transaction), 302);
}
