import { Authentication, PASSWORD_REALM, PASSWORDLESS_OTP, type TokenResult } from '../authentication/authentication.js';
import { authError, invalidRequest, invalidToken, type Callback, type LibraryError } from '../helper/errors.js';
import { browserStore, cookieStore, memoryStore, type KeyValueStore } from '../helper/storage.js';
import { randomString } from '../helper/random.js';
import { isAuthError, toAuthResult, type AuthResult, type ResponseFields } from './auth-result.js';
import type { IdTokenPayload } from './id-token.js';
import { authenticateCrossOrigin, serveVerifier } from './cross-origin.js';
import { authorizeInFrame } from './frame.js';
import { jwksKeys, type KeyLookup } from './jwks.js';
import { checkResponseType, linkOptionsProblem, requestWithDefaults, type ResolvedOptions, type WebAuthOptions } from './options.js';
import { popupMethods, type PopupMethods } from './popup-methods.js';
import { transactionStore, type Transaction, type TransactionStore } from './transactions.js';

type Options = Record<string, unknown>;

/** The spec's limit on polling checkSession: at least this long between calls. */
const CHECK_SESSION_INTERVAL_MS = 15 * 60 * 1000;
const CHECK_SESSION_TIMEOUT_MS = 60 * 1000;
/**
 * When each application (tenant and client) last checked its session in this page, whichever instance did: a
 * page that builds a new `WebAuth` for every poll still polls.
 */
const lastSessionChecks = new Map<string, number>();

/** Reads the fields of a redirect's fragment (`#a=1&b=2`, also `#/a=1` of hash routers). */
function hashFields(hash: string): ResponseFields {
  return Object.fromEntries(new URLSearchParams(hash.replace(/^#?\/?/, '')));
}

/**
 * Browser login against the tenant (the reference library's `WebAuth`): redirect, popup, silent and embedded
 * login, passwordless, signup, password reset and logout, with state and nonce kept per transaction and every
 * ID token validated before the application sees it.
 */
export class WebAuth {
  readonly baseOptions: ResolvedOptions;
  readonly client: Authentication;
  readonly popup: PopupMethods;
  readonly #tenantOrigin: string;
  readonly #transactions: TransactionStore;
  readonly #verifiers: KeyValueStore;
  readonly #keys: KeyLookup;

  constructor(options: WebAuthOptions) {
    this.client = new Authentication(options);
    this.baseOptions = this.client.baseOptions;
    this.#tenantOrigin = new URL(this.client.base).origin;
    this.#transactions = transactionStore(browserStore());
    // The verifier must be readable by our frame of the application's page on the tenant's site: a cookie.
    this.#verifiers = typeof document !== 'undefined' ? cookieStore() : memoryStore();
    this.#keys = jwksKeys(`${this.client.base}/.well-known/jwks.json`);
    this.popup = popupMethods({
      requestOptions: (request) => this.#requestOptions(request),
      transactionUrl: (request) => this.#transactionUrl(request),
      parseHash: (request, cb) => this.parseHash(request, cb),
      signup: (request, cb) => this.signup(request, cb),
      silentAuthorize: (request, cb) => this.#silentAuthorize(request, cb),
      crossOriginLogin: (credentials, request, cb, spendTicket) => this.#crossOriginLogin(credentials, request, cb, spendTicket),
    });
  }

  /** The request an authorize-like call makes: instance defaults, then the call's options. */
  #requestOptions(options: Options): Options & { responseType: string; redirectUri?: string } {
    const merged = requestWithDefaults(this.baseOptions, options);
    checkResponseType(merged.responseType);
    return merged as Options & { responseType: string; redirectUri?: string };
  }

  /** Starts a transaction (state, nonce, appState) and answers the `/authorize` URL that carries it. */
  #transactionUrl(options: Options): string {
    const merged = this.#requestOptions(options);
    const { state, nonce } = this.#transactions.begin({
      state: merged.state as string | undefined,
      nonce: merged.nonce as string | undefined,
      appState: merged.appState,
      maxAge: merged.maxAge as number | undefined,
      responseType: merged.responseType,
    });
    return this.client.buildAuthorizeUrl({ ...merged, state, nonce });
  }

  /** Redirects to `/authorize` (hosted login, or a connection's own login with `connection`). */
  authorize(options: Options = {}): void {
    window.location.assign(this.#transactionUrl(options));
  }

  #validationContext(transaction: Transaction | null, nonce: string | undefined) {
    return {
      keys: this.#keys,
      issuer: `${this.client.base}/`,
      clientId: this.baseOptions.clientID,
      leeway: this.baseOptions.leeway,
      maxAge: transaction?.maxAge ?? this.baseOptions.maxAge,
      nonce,
    };
  }

  /**
   * Reads the result of a redirect from the fragment. The `state` must be one this page started (or the one
   * given); the nonce is the transaction's unless the application gives its own, as it gave it to `authorize`.
   */
  parseHash(options: Options | Callback<AuthResult | null>, maybeCb?: Callback<AuthResult | null>): void {
    const cb = (typeof options === 'function' ? options : maybeCb) as Callback<AuthResult | null>;
    const given = (typeof options === 'function' ? {} : (options ?? {})) as { hash?: string; state?: string; nonce?: string };
    this.validateAuthenticationResponse(given, hashFields(given.hash ?? window.location.hash), cb);
  }

  /**
   * Validates an authorization response already read into its fields (snake_case, as on the wire): an error
   * is handed on, the state must be one this page started (or `options.state`), then the ID token is checked
   * with the transaction's nonce or `options.nonce`.
   */
  validateAuthenticationResponse(options: { state?: string; nonce?: string }, fields: ResponseFields, cb: Callback<AuthResult | null>): void {
    const state = fields.state === undefined ? undefined : String(fields.state);
    const transaction = state === undefined ? null : this.#transactions.take(state);
    if (fields.error !== undefined) {
      cb(authError(String(fields.error), String(fields.error_description ?? ''), state));
      return;
    }
    if (fields.access_token === undefined && fields.id_token === undefined && fields.refresh_token === undefined) {
      cb(null, null);
      return;
    }
    const stateMatches = options.state !== undefined ? options.state === state : transaction !== null;
    if (!stateMatches) {
      cb(invalidToken('`state` does not match.', state));
      return;
    }
    this.#finish(fields, transaction, options.nonce ?? transaction?.nonce, cb);
  }

  /** Validates one ID token (RS256, issuer, audience, times with leeway, the nonce when given) and answers its claims. */
  validateToken(token: string, nonce: string | undefined, cb: Callback<IdTokenPayload>): void {
    toAuthResult({ id_token: token }, this.#validationContext(null, nonce)).then(
      (result) => (isAuthError(result) ? cb(result) : cb(null, result.idTokenPayload ?? undefined)),
      (failure: unknown) => cb(invalidToken(String(failure))),
    );
  }

  #finish(fields: ResponseFields, transaction: Transaction | null, nonce: string | undefined, cb: Callback<AuthResult>) {
    toAuthResult(fields, this.#validationContext(transaction, nonce), transaction?.appState).then(
      (result) => (isAuthError(result) ? cb(result) : cb(null, result)),
      (failure: unknown) => cb(invalidToken(String(failure))),
    );
  }

  /**
   * Silent renewal: `/authorize` with `prompt=none` in a hidden frame. A custom nonce is given here only; the
   * returned ID token must carry it.
   */
  checkSession(options: Options, cb: Callback<AuthResult>): void {
    const now = Date.now();
    const application = `${this.client.base} ${this.baseOptions.clientID}`;
    if (now - (lastSessionChecks.get(application) ?? -Infinity) < CHECK_SESSION_INTERVAL_MS) {
      this.#warn('checkSession was called again within 15 minutes: poll at most every 15 minutes.');
    }
    lastSessionChecks.set(application, now);
    this.#silentAuthorize({ ...options, prompt: 'none' }, cb);
  }

  /** The reference's former silent renewal; it now works as `checkSession`. */
  renewAuth(options: Options, cb: Callback<AuthResult>): void {
    this.#warn('renewAuth is deprecated: use checkSession.');
    this.#silentAuthorize({ ...options, prompt: 'none', usePostMessage: undefined, postMessageDataType: undefined, postMessageOrigin: undefined }, cb);
  }

  /** `/authorize` answered by web_message in a hidden frame; the state and nonce are this call's own. */
  #silentAuthorize(options: Options, cb: Callback<AuthResult>): void {
    const merged = this.#requestOptions({ ...options, responseMode: 'web_message' });
    if (!merged.redirectUri) {
      cb(invalidRequest('redirectUri option is required'));
      return;
    }
    const state = (merged.state as string | undefined) ?? randomString();
    const nonce = (merged.nonce as string | undefined) ?? (merged.responseType.split(' ').includes('id_token') ? randomString() : undefined);
    const url = this.client.buildAuthorizeUrl({ ...merged, state, nonce, timeout: undefined });
    const timeoutMs = typeof merged.timeout === 'number' ? merged.timeout : CHECK_SESSION_TIMEOUT_MS;
    authorizeInFrame({ url, origin: this.#tenantOrigin, state, timeoutMs }, (response) => {
      if (response.error !== undefined) {
        const description = String(response.error_description ?? '');
        cb({ ...authError(String(response.error), description, state), error_description: description } as LibraryError);
        return;
      }
      const maxAge = merged.maxAge as number | undefined;
      this.#finish(response, maxAge !== undefined ? { maxAge } : null, nonce, cb);
    });
  }

  /**
   * Embedded login with a database connection: the credentials go to `/co/authenticate` (our session cookie
   * is set cross-site), then the browser goes to `/authorize` with the login ticket.
   */
  login(options: Options, cb: Callback<never>): void {
    const username = (options?.username ?? options?.email) as string | undefined;
    if (!username) return void cb(invalidRequest('username or email option is required', { legacyNames: true }));
    if (!options.password) return void cb(invalidRequest('password option is required', { legacyNames: true }));
    if (!options.realm) return void cb(invalidRequest('realm option is required', { legacyNames: true }));
    this.#crossOriginLogin({ credential_type: PASSWORD_REALM, username, password: options.password, realm: options.realm }, options, cb, (authorizeOptions) =>
      this.authorize(authorizeOptions),
    );
  }

  #crossOriginLogin(credentials: Options, options: Options, cb: Callback<never>, spendTicket: (authorizeOptions: Options) => void) {
    const deps = { base: this.client.base, clientId: this.baseOptions.clientID, tenantOrigin: this.#tenantOrigin, verifiers: this.#verifiers };
    authenticateCrossOrigin(deps, credentials, options, cb, spendTicket);
  }

  /** Call on the application's cross-origin verification page (the application's `cross_origin_loc`). */
  crossOriginVerification(): void {
    serveVerifier(this.#verifiers, this.#tenantOrigin);
  }

  /** Sends a one-time code or a magic link by e-mail or SMS. */
  passwordlessStart(options: Options, cb: Callback<Record<string, unknown>>): void {
    const { connection, send, email, phoneNumber } = (options ?? {}) as { connection?: string; send?: string | null; email?: string; phoneNumber?: string };
    if (send !== undefined && send !== null && send !== 'code' && send !== 'link') {
      return void cb(invalidRequest('send option must be code or link'));
    }
    const linkSent = send === undefined || send === null || send === 'link';
    if (linkSent) {
      const problem = linkOptionsProblem(this.baseOptions, ((options ?? {}).authParams as Options | undefined) ?? {});
      if (problem) return void cb(invalidRequest(problem));
    }
    // A link, once clicked, answers at the redirect URI: that answer needs a transaction of its own.
    const authParams = linkSent ? this.#linkParameters(options) : undefined;
    this.client.passwordless.start({ connection, send: linkSent ? 'link' : 'code', email, phoneNumber, ...(authParams ? { authParams } : {}) }, cb);
  }

  #linkParameters(options: Options): Options {
    const merged = this.#requestOptions((options.authParams as Options | undefined) ?? {});
    const { state, nonce } = this.#transactions.begin({ state: merged.state as string | undefined, nonce: merged.nonce as string | undefined, responseType: merged.responseType });
    const { clientID: _clientID, ...rest } = merged;
    return { ...rest, state, nonce };
  }

  /** Completes a passwordless login with the code the user received. */
  passwordlessLogin(options: Options, cb: Callback<never>): void {
    const { connection, verificationCode, email, phoneNumber, ...authorizeOptions } = (options ?? {}) as Options;
    if (!connection) return void cb(invalidRequest('connection option is required', { legacyNames: true }));
    if (!verificationCode) return void cb(invalidRequest('verificationCode option is required', { legacyNames: true }));
    const username = (email ?? phoneNumber) as string | undefined;
    if (!username || (email !== undefined && phoneNumber !== undefined)) {
      return void cb(invalidRequest('exactly one of email or phoneNumber is required', { legacyNames: true }));
    }
    this.#crossOriginLogin({ credential_type: PASSWORDLESS_OTP, username, otp: String(verificationCode), realm: connection }, authorizeOptions, cb, (ticketed) =>
      this.authorize(ticketed),
    );
  }

  /**
   * Passwordless the hosted-page way: the code is checked (`/passwordless/verify`), then the browser goes to
   * `/passwordless/verify_redirect`, which spends it and answers like `/authorize` at the redirect URI.
   */
  passwordlessVerify(options: Options, cb: Callback<never>): void {
    const { connection, verificationCode, email, phoneNumber, ...authorizeOptions } = (options ?? {}) as Options;
    const address = email !== undefined ? { email } : { phoneNumber };
    this.client.passwordless.verify({ connection, verificationCode, ...address }, (err) => {
      if (err) return cb(err);
      const merged = this.#requestOptions(authorizeOptions);
      const { state, nonce } = this.#transactions.begin({ state: merged.state as string | undefined, nonce: merged.nonce as string | undefined, responseType: merged.responseType });
      window.location.assign(this.client.passwordless.buildVerifyUrl({ ...merged, state, nonce, connection, verificationCode, ...address }));
    });
  }

  /** Creates a user in a database connection. */
  signup(options: Options, cb: Callback<Record<string, unknown>>): void {
    this.client.dbConnection.signup(options, cb);
  }

  /** E-mails the user a link to choose a new password. */
  changePassword(options: { connection?: string; email?: string }, cb: Callback<string>): void {
    this.client.dbConnection.changePassword(options, cb);
  }

  /**
   * Creates the user, then logs them in with the same credentials by the password-realm grant, as the reference
   * does: the callback gets the tokens, and the page stays where it is.
   */
  signupAndAuthorize(options: Options, cb: Callback<TokenResult>): void {
    this.signup(options, (err) => {
      if (err) return cb(err);
      const { connection, email, password, username, user_metadata: _um, userMetadata: _umc, ...loginOptions } = options;
      const name = typeof username === 'string' && username !== '' ? username : email;
      this.client.login({ ...loginOptions, realm: connection as string, username: name as string, password: password as string }, cb);
    });
  }

  /** The reference's former name of `crossOriginVerification`. */
  crossOriginAuthenticationCallback(): void {
    this.#warn('crossOriginAuthenticationCallback is deprecated: use crossOriginVerification.');
    this.crossOriginVerification();
  }

  /** Ends the session at the tenant and returns to `returnTo` (which must be allowed). */
  logout(options: { returnTo?: string; clientID?: string; federated?: boolean } = {}): void {
    window.location.assign(this.client.buildLogoutUrl(options));
  }

  #warn(message: string) {
    if (!this.baseOptions._disableDeprecationWarnings) console.warn(`latchkey: ${message}`);
  }
}
