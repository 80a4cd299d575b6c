import type { ConnectionData } from '../../services/connections.js';
import { originFields, type RequestOrigin } from '../../services/events/event.js';
import type { Session, Sessions } from '../../services/sessions.js';
import type { Storage } from '../../storage/storage.js';
import type { CachedClient, OAuthConfig } from '../../services/config-cache.js';
import { AccessDenied, ActionFailed, ConsentRequired, InvalidRequest, LoginRequired, OAuthError } from '../errors.js';
import type { TokenChanges } from '../action-claims.js';
import type { LoginTickets } from '../login-tickets.js';
import type { UserGrantServices } from '../grants/grant.js';
import { checkRequest, trustRedirect, UntrustedRequest, type TrustedTarget } from './checks.js';
import { authorizationResult, type IssuedGrant } from './issue.js';
import type { AuthorizeRequest, RawParams } from './request.js';
import { startSession, type SignedInUser, type StartedSession } from './sign-in.js';
import { MFA_REQUIRED, type SignInAttempt, type SignInDecisions } from '../sign-in-pipeline.js';
import { deliver, type AuthorizationAnswer } from './response.js';
import type { LoginTransaction, LoginTransactions } from './transaction.js';
import type { UpstreamLogin } from '../upstream/login.js';
import type { ConsentNeed, Consents } from '../consent.js';
import type { OrganizationLogin } from '../organization-login.js';
import { browserProtocol, type PostLoginActions, type PostLoginResume } from '../post-login-actions.js';
import { randomId } from '../../crypto/random.js';
import { browserRefusal, SecondFactorNeeded, type BrowserSignInPath } from '../mfa/browser-mfa.js';
import { pendingSecondFactor } from './second-factor.js';

export interface AuthorizeDeps {
  storage: Storage;
  tenantId: string;
  config: OAuthConfig;
  users: UserGrantServices;
  sessions: Sessions;
  transactions: LoginTransactions;
  loginTickets: LoginTickets;
  upstream: UpstreamLogin;
  consents: Consents;
  organizations: OrganizationLogin;
  /** The tenant's post-login Actions, run where a browser authorization is answered. */
  postLogin: PostLoginActions;
}

/**
 * The signed-in user has one more screen before the application is answered (their organization, or consent): a
 * transaction holding the request and what it waits for, whose cookie the browser gets on its way to the screen.
 */
export interface ScreenFirst {
  kind: 'screen';
  /** `mfa`: the hosted MFA screens (http/login/mfa-screens.ts picks the first one). */
  screen: 'organization-picker' | 'consent' | 'mfa';
  handle: string;
  transaction: LoginTransaction;
}

/**
 * A post-login Action sends the signed-in user to another site first (`api.redirect.sendUserTo`): the browser goes
 * to `url` (which carries the transaction's public id as `state`) with the cookie that binds the transaction, and
 * comes back to `/continue?state=`.
 */
export interface ElsewhereFirst {
  kind: 'elsewhere';
  url: string;
  handle: string;
  transaction: LoginTransaction;
}

/** What answering an authorization leads to: the answer to the application, or a screen or another site first. */
export type AuthorizationStep = AuthorizationAnswer | ScreenFirst | ElsewhereFirst;

/** What the browser brought: its SSO session and, after a cross-origin login, the ticket's verifier. */
export interface BrowserState {
  /** Its address and User-Agent (a sign-in logs them). */
  origin: RequestOrigin;
  sessionHandle?: string | undefined;
  coVerifier?: string | undefined;
  /** Our verification page came back without the verifier (`co_verification=failed`): answer the application. */
  verificationFailed?: boolean;
}

export type AuthorizeOutcome =
  | { kind: 'untrusted'; error: UntrustedRequest['error']; description: string }
  | { kind: 'answer'; answer: AuthorizationStep }
  | { kind: 'login'; handle: string; transaction: LoginTransaction }
  /** The login happens at an upstream provider: its transaction's cookie to set, and where to send the browser. */
  | { kind: 'upstream'; handle: string; transaction: LoginTransaction; answer: AuthorizationAnswer }
  /** A login ticket was redeemed: a new SSO session (its cookie to set) and the answer. */
  | { kind: 'signed_in'; sessionHandle: string; answer: AuthorizationStep }
  /** The ticket's verifier must be read back through the application's cross-origin verification page. */
  | { kind: 'verify'; coId: string; crossOriginLoc: string };

/** An error after the redirect URI is trusted goes back to it, in the response mode, with `state`. */
export function errorAnswer(target: Pick<TrustedTarget, 'responseMode' | 'redirectUri' | 'state'>, error: OAuthError): AuthorizationAnswer {
  return deliver(target.responseMode, target.redirectUri, { error: error.error, error_description: error.description, state: target.state });
}

/** Whether the SSO session may answer this request without the user logging in again. */
export async function sessionServes(session: Session | undefined, request: AuthorizeRequest, deps: AuthorizeDeps): Promise<boolean> {
  if (!session || request.prompt.includes('login')) return false;
  const now = Math.floor(deps.users.now().getTime() / 1000);
  if (request.maxAge !== undefined && now - session.data.auth_time > request.maxAge) return false;
  if (request.connection !== undefined && request.connection !== session.data.connection) return false;
  const connection = await deps.storage.connections.findOne(deps.tenantId, { name: session.data.connection });
  if (!connection?.data.enabled_clients.includes(request.clientId)) return false;
  // A login to an organization: the session's connection is one of the organization's, the user already a member
  // (joining, by invitation or by connection, happens when the user logs in).
  if (request.organization !== undefined) {
    if (request.invitation !== undefined) return false;
    if (!(await deps.organizations.connectionEnabled(request.organization, connection.id))) return false;
    if (!(await deps.organizations.isMember(request.organization, session.data.user_id))) return false;
  }
  const user = await deps.storage.users.get(deps.tenantId, session.data.user_id);
  return user !== undefined && !user.data.blocked;
}

/**
 * What a sign-in's stages settled before its session started: the code stored with the session (`issued`), or the
 * consent the user must give first (the session then started without a code).
 */
export interface SignInSettled {
  issued?: IssuedGrant | undefined;
  /** Where the sign-in came from and how the user authenticated (post-login Actions see them). */
  origin?: RequestOrigin | undefined;
  amr?: readonly string[] | undefined;
  consent?: ConsentNeed | undefined;
  pickOrganization?: boolean | undefined;
  /** The user came back through `/continue` after a post-login Action sent them away: the actions resume there. */
  resume?: PostLoginResume | undefined;
  /** The post-login Actions ran already (one asked for a second factor, given since): their token changes. */
  actionsRan?: { changes?: TokenChanges | undefined } | undefined;
}

/**
 * Issues the authorization response for an authenticated session. `settled` comes from a sign-in that just ran
 * its stages; without it (an SSO session answering a new request, or consent just given) the consent is checked
 * here. When consent is needed, the answer is the consent screen instead.
 */
export async function completeAuthorization(
  request: AuthorizeRequest,
  client: CachedClient,
  session: Session,
  deps: AuthorizeDeps,
  settled?: SignInSettled,
  origin?: RequestOrigin,
): Promise<AuthorizationStep> {
  const signedIn = { userId: session.data.user_id, sid: session.data.sid };
  if (settled ? settled.pickOrganization : deps.organizations.pickerNeeded(request, client)) {
    const { handle, transaction } = await deps.transactions.create(request, { organizationPicker: signedIn });
    return { kind: 'screen', screen: 'organization-picker', handle, transaction };
  }
  const consent = settled ? settled.consent : await deps.consents.needed(request, client, session.data.user_id);
  if (consent) {
    const { handle, transaction } = await deps.transactions.create(request, { consent: { ...consent, ...signedIn } });
    return { kind: 'screen', screen: 'consent', handle, transaction };
  }
  // A sign-in that stored its code with its session ran no post-login Actions (none were bound); any other answer
  // runs them now, before its code or tokens exist: a denial or a failure goes back to the application instead.
  let actions: TokenChanges | undefined = settled?.actionsRan?.changes;
  if (!settled?.issued && !settled?.actionsRan) {
    // Chosen now: an action's redirect and its encodeToken tokens carry it before the transaction exists. A login
    // that came back keeps the state it came back with (the other site's token names it; a second redirect reuses it).
    const continueState = settled?.resume?.state ?? randomId(24);
    const amr = [...(settled?.amr ?? session.data.amr ?? [])];
    const outcome = await deps.postLogin.run({
      clientId: client.clientId,
      userId: session.data.user_id,
      connection: session.data.connection,
      amr,
      origin: settled?.origin ?? origin ?? { ip: '' },
      protocol: browserProtocol(request),
      audience: request.audience,
      scopes: request.scopes,
      request,
      organizationId: request.organization,
      sessionId: session.data.sid,
      // Silent authentication has no page to leave from: an action's redirect refuses it.
      interactive: !request.prompt.includes('none'),
      continueState,
    }, settled?.resume);
    const target = { responseMode: request.responseMode, redirectUri: request.redirectUri, state: request.state };
    if (outcome.kind === 'denied') return errorAnswer(target, new AccessDenied(outcome.description));
    if (outcome.kind === 'failed') return errorAnswer(target, new ActionFailed(outcome.description));
    if (outcome.kind === 'redirect') {
      const postLogin = { ...signedIn, amr, ...outcome.resume };
      const { handle, transaction } = await deps.transactions.create(request, { publicId: continueState, postLogin });
      return { kind: 'elsewhere', url: outcome.url, handle, transaction };
    }
    // An action asked for a second factor the session does not have: the MFA screens, then the answer (the
    // actions are not run again; what they changed waits in the transaction).
    if (outcome.multifactor && !amr.includes('mfa')) {
      // prompt=none: the platform's login_required in its wording, by which its SDKs tell a step-up from a missing
      // session (auth0-spa-js then turns to an interactive login); the same below for the policy and acr_values.
      if (request.prompt.includes('none')) return errorAnswer(target, new LoginRequired(MFA_REQUIRED));
      const user = { userId: session.data.user_id, connection: session.data.connection, amr };
      const mfa = await pendingSecondFactor(deps.users, request, user, 'login-page', { sid: session.data.sid, actions: { changes: outcome.changes } });
      const { handle, transaction } = await deps.transactions.create(request, { mfa });
      return { kind: 'screen', screen: 'mfa', handle, transaction };
    }
    actions = outcome.changes;
  }
  await deps.sessions.addClient(session, client.clientId);
  const result = await authorizationResult(request, client, session.data, deps, settled?.issued, actions);
  return deliver(request.responseMode, request.redirectUri, result);
}

/**
 * Runs a browser sign-in that has no login transaction of its own (a login ticket, a magic link, an unsolicited SAML
 * response); when it stops for a second factor, what signed the user in is spent (`spend`: false when it was spent
 * already) and a transaction for the MFA screens answers instead.
 */
async function secondFactorFirst<T>(
  request: AuthorizeRequest,
  user: SignedInUser,
  path: BrowserSignInPath,
  deps: AuthorizeDeps,
  spend: () => Promise<boolean>,
  signIn: () => Promise<T>,
): Promise<{ signedIn: T } | { mfa: Extract<AuthorizeOutcome, { kind: 'login' }> } | undefined> {
  try {
    return { signedIn: await signIn() };
  } catch (error) {
    if (!(error instanceof SecondFactorNeeded)) throw error;
    if (!(await spend())) return undefined;
    const { handle, transaction } = await deps.transactions.create(request, { mfa: await pendingSecondFactor(deps.users, request, user, path) });
    return { mfa: { kind: 'login', handle, transaction } };
  }
}

/**
 * `login_ticket` (after `/co/authenticate`): signs the user in without a page, once, and only in the browser that
 * holds the ticket's verifier. Without it (third-party cookies blocked), the application's verification page
 * can hand it over; an application without one cannot complete cross-origin login in that browser.
 */
async function ticketLogin(request: AuthorizeRequest, target: TrustedTarget, browser: BrowserState, deps: AuthorizeDeps): Promise<AuthorizeOutcome> {
  const ticket = request.loginTicket ?? '';
  const data = await deps.loginTickets.find(ticket, request.clientId);
  if (!data) throw new AccessDenied('The login ticket is invalid, expired or was used already.');
  if (!deps.loginTickets.verifierMatches(data, browser.coVerifier)) {
    const page = target.client.data.cross_origin_loc;
    if (browser.verificationFailed) {
      throw new AccessDenied('Cross-origin login could not be verified: the application\'s verification page did not hand over the verifier in this browser.');
    }
    if (page) return { kind: 'verify', coId: data.co_id, crossOriginLoc: page };
    throw new AccessDenied(
      'Cross-origin login could not be verified: this browser blocks third-party cookies and the application has no cross-origin verification page (cross_origin_loc).',
    );
  }
  const user = { userId: data.user_id, connection: data.connection, amr: data.amr };
  const attempt = browserAttempt('cross-origin-ticket', user, request, target.client, browser);
  // Spent and turned into a session (with its code) together: a failure in between leaves the ticket unspent.
  const started = await secondFactorFirst(request, user, 'cross-origin-ticket', deps, async () => (await deps.loginTickets.redeem(ticket)) !== undefined, () => deps.users.signIn.run(attempt, () =>
    startSession(deps, {
      client: target.client,
      authorization: request,
      answerLater: answerLater(attempt.decisions),
      earlierSession: browser.sessionHandle,
      origin: browser.origin,
      user: async (repos) => {
        const redeemed = await deps.loginTickets.redeem(ticket, repos);
        return redeemed && { userId: redeemed.user_id, connection: redeemed.connection, amr: redeemed.amr };
      },
    }),
  ));
  if (started && 'mfa' in started) return started.mfa;
  if (!started?.signedIn) throw new AccessDenied('The login ticket is invalid, expired or was used already.');
  return signedIn(request, target.client, started.signedIn, deps, attempt);
}

/** The API and scopes an authorization request asks for, as a sign-in logs them. */
export function requested(request: Pick<AuthorizeRequest, 'audience' | 'scopes' | 'acrValues'>): { audience?: string; scope: string; acrValues?: string } {
  const asked = request.audience !== undefined ? { audience: request.audience, scope: request.scopes.join(' ') } : { scope: request.scopes.join(' ') };
  // The multi-factor stage reads acr_values (oauth/mfa/requirement.ts).
  return request.acrValues !== undefined ? { ...asked, acrValues: request.acrValues } : asked;
}

export { browserRefusal };

/** A browser sign-in of `user` answering an authorization request, as the pipeline's stages see it. */
function browserAttempt(path: BrowserSignInPath, user: SignedInUser, request: AuthorizeRequest, client: CachedClient, browser: BrowserState): SignInAttempt & { decisions: SignInDecisions } {
  return { ...user, path, clientId: request.clientId, refuse: browserRefusal, origin: browser.origin, authorization: { request, client }, decisions: {}, ...requested(request) };
}

/** The answer to a sign-in whose session (and code, unless consent comes first) `startSession` stored. */
async function signedIn(request: AuthorizeRequest, client: CachedClient, started: StartedSession, deps: AuthorizeDeps, attempt: SignInAttempt & { decisions: SignInDecisions }): Promise<AuthorizeOutcome> {
  const { decisions } = attempt;
  const settled = { issued: started.issued, consent: decisions.consent, pickOrganization: decisions.pickOrganization, origin: attempt.origin, amr: attempt.amr };
  return { kind: 'signed_in', sessionHandle: started.handle, answer: await completeAuthorization(request, client, started.session, deps, settled) };
}

/** Whether the sign-in's stages left a screen before the answer: the session starts, the code waits. */
export const answerLater = (decisions: SignInDecisions) => decisions.consent !== undefined || decisions.pickOrganization === true || decisions.postLoginPending === true;

/**
 * Trusts the redirect URI (or answers with the error page), then runs `work`; an OAuthError from `work` goes back
 * to the trusted redirect URI in its response mode.
 */
async function withTrustedTarget(raw: RawParams, deps: AuthorizeDeps, work: (target: TrustedTarget) => Promise<AuthorizeOutcome>): Promise<AuthorizeOutcome> {
  let target: TrustedTarget;
  try {
    target = await trustRedirect(raw, deps.config);
  } catch (error) {
    if (error instanceof UntrustedRequest) return { kind: 'untrusted', error: error.error, description: error.description };
    throw error;
  }
  try {
    return await work(target);
  } catch (error) {
    if (error instanceof OAuthError) return { kind: 'answer', answer: errorAnswer(target, error) };
    throw error;
  }
}

/**
 * An authorization request whose user authenticates by the request itself (`/passwordless/verify_redirect`):
 * the same checks as `/authorize`, then `authenticate` (an OAuthError goes back to the application), a new
 * SSO session and the answer.
 */
export async function authorizeAuthenticated(
  raw: RawParams,
  browser: BrowserState,
  deps: AuthorizeDeps,
  path: Extract<BrowserSignInPath, 'passwordless-link' | 'idp-initiated-saml'>,
  authenticate: (request: AuthorizeRequest) => Promise<SignedInUser>,
): Promise<AuthorizeOutcome> {
  return withTrustedTarget(raw, deps, async (target) => {
    const request = await organizationRequest(await checkRequest(raw, target, deps.config), target.client, deps, false);
    const user = await authenticate(request);
    const attempt = browserAttempt(path, user, request, target.client, browser);
    const started = await secondFactorFirst(request, user, path, deps, async () => true, () =>
      deps.users.signIn.run(attempt, () =>
        startSession(deps, { client: target.client, authorization: request, answerLater: answerLater(attempt.decisions), earlierSession: browser.sessionHandle, origin: browser.origin, user }),
      ),
    );
    if (!started) throw new AccessDenied('The sign-in could not be completed.');
    if ('mfa' in started) return started.mfa;
    return signedIn(request, target.client, started.signedIn, deps, attempt);
  });
}

/**
 * Silent authentication (`prompt=none`) is logged as the platform logs it: `ssa` when the SSO session answers,
 * `fsa` when it cannot (login or consent required). Answers the refusal for the caller to throw.
 */
function silentAuthFailed(error: OAuthError, request: AuthorizeRequest, session: Session | undefined, origin: RequestOrigin, deps: AuthorizeDeps): OAuthError {
  deps.users.events.record({
    type: 'fsa',
    description: error.description,
    client_id: request.clientId,
    ...(session ? { user_id: session.data.user_id } : {}),
    ...(request.connection !== undefined ? { connection: request.connection } : {}),
    ...originFields(origin),
    ...requested(request),
    details: { error: error.error },
  });
  return error;
}

function silentAuthSucceeded(request: AuthorizeRequest, session: Session, origin: RequestOrigin, deps: AuthorizeDeps): void {
  deps.users.events.record({
    type: 'ssa',
    client_id: request.clientId,
    user_id: session.data.user_id,
    connection: session.data.connection,
    ...originFields(origin),
    ...requested(request),
  });
}

/** The request must first name its organization on the organization-selection screen. */
const SELECT_ORGANIZATION_FIRST = Symbol('select organization first');

/**
 * The request with its organization checked and resolved to an id (oauth/organization-login.ts); when the client
 * asks for the organization before login, that screen (only where a page can be shown: `withPage`).
 */
async function organizationRequest(request: AuthorizeRequest, client: CachedClient, deps: AuthorizeDeps, withPage: true): Promise<AuthorizeRequest | typeof SELECT_ORGANIZATION_FIRST>;
async function organizationRequest(request: AuthorizeRequest, client: CachedClient, deps: AuthorizeDeps, withPage: false): Promise<AuthorizeRequest>;
async function organizationRequest(request: AuthorizeRequest, client: CachedClient, deps: AuthorizeDeps, withPage: boolean): Promise<AuthorizeRequest | typeof SELECT_ORGANIZATION_FIRST> {
  const start = await deps.organizations.start(request, client);
  if (start.kind === 'organization') return start.request;
  if (start.kind === 'select-first') {
    if (withPage) return SELECT_ORGANIZATION_FIRST;
    throw new InvalidRequest('parameter organization is required for this client');
  }
  return request;
}

/**
 * `/authorize`: trust the redirect, check the request, then answer from the SSO session, refuse (`prompt=none`),
 * or start a login transaction for the hosted pages.
 */
export async function authorize(raw: RawParams, browser: BrowserState, deps: AuthorizeDeps): Promise<AuthorizeOutcome> {
  return withTrustedTarget(raw, deps, async (target) => {
    const checked = await checkRequest(raw, target, deps.config);
    const silent = checked.prompt.includes('none');
    const request = await organizationRequest(checked, target.client, deps, true);
    // The organization's name is asked on a page before anything else (the client's pre-login prompt).
    if (request === SELECT_ORGANIZATION_FIRST) {
      if (silent) throw silentAuthFailed(new LoginRequired(), checked, undefined, browser.origin, deps);
      const { handle, transaction } = await deps.transactions.create(checked);
      return { kind: 'login', handle, transaction };
    }
    let federated: ConnectionData | undefined;
    if (request.connection !== undefined) {
      const connection = await deps.storage.connections.findOne(deps.tenantId, { name: request.connection });
      if (!connection?.data.enabled_clients.includes(request.clientId)) {
        throw new InvalidRequest(`The connection '${request.connection}' does not exist or is not enabled for this application.`);
      }
      if (request.organization !== undefined && !(await deps.organizations.connectionEnabled(request.organization, connection.id))) {
        throw new InvalidRequest(`The connection '${request.connection}' is not enabled for the organization.`);
      }
      if (deps.upstream.isFederated(connection.data)) federated = connection.data;
    }
    // Development keys sign no one in silently (the spec): not even from an existing session.
    if (federated && deps.upstream.silentLoginImpossible(federated) && silent) throw silentAuthFailed(new LoginRequired(), request, undefined, browser.origin, deps);
    if (request.loginTicket !== undefined) return await ticketLogin(request, target, browser, deps);
    const session = await deps.sessions.find(browser.sessionHandle);
    // An SSO session started without a second factor does not serve a login that needs one (the policy, acr_values).
    const serves = await sessionServes(session, request, deps);
    const needsMfa = serves && session !== undefined && (await deps.users.mfa.required(session.data.amr ?? [], request.acrValues));
    if (serves && !needsMfa) {
      const served = session as Session;
      // Without a page, the organization cannot be chosen.
      if (silent && deps.organizations.pickerNeeded(request, target.client)) {
        throw silentAuthFailed(new LoginRequired('Login required: the user must choose an organization.'), request, served, browser.origin, deps);
      }
      // Without a page, consent not given yet cannot be asked for.
      if (silent && (await deps.consents.needed(request, target.client, served.data.user_id))) {
        throw silentAuthFailed(new ConsentRequired('Consent required: the user has not consented to what the application asks.'), request, served, browser.origin, deps);
      }
      const answer = await completeAuthorization(request, target.client, served, deps, undefined, browser.origin);
      if (silent) silentAuthSucceeded(request, session as Session, browser.origin, deps);
      return { kind: 'answer', answer };
    }
    if (silent) throw silentAuthFailed(new LoginRequired(needsMfa ? MFA_REQUIRED : undefined), request, session, browser.origin, deps);
    // Step-up: the SSO session's user gives the second factor the request asks for, without logging in again.
    if (needsMfa && session) {
      const user = { userId: session.data.user_id, connection: session.data.connection, amr: session.data.amr ?? [] };
      const mfa = await pendingSecondFactor(deps.users, request, user, 'login-page', { sid: session.data.sid });
      const { handle, transaction } = await deps.transactions.create(request, { mfa });
      return { kind: 'login', handle, transaction };
    }
    const { handle, transaction } = await deps.transactions.create(request);
    if (federated) return { kind: 'upstream', handle, transaction, answer: await deps.upstream.begin(handle, transaction, federated) };
    return { kind: 'login', handle, transaction };
  });
}
