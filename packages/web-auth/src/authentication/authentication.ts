import { toCamelCase, toSnakeCase } from '../helper/case.js';
import { requestError, type Callback } from '../helper/errors.js';
import { request, respond } from '../helper/request.js';
import { baseUrl, urlWithQuery } from '../helper/url.js';
import { authorizeParameters } from '../web-auth/authorize-params.js';
import { requestWithDefaults, resolveOptions, type WebAuthOptions } from '../web-auth/options.js';

const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';
const PASSWORDLESS_OTP = 'http://auth0.com/oauth/grant-type/passwordless/otp';

export { PASSWORD_REALM, PASSWORDLESS_OTP };

export interface TokenResult {
  accessToken?: string;
  idToken?: string;
  refreshToken?: string;
  expiresIn?: number;
  tokenType?: string;
  scope?: string;
}

/** A required option missing from a callback call: reported through the callback, as the reference does. */
function missing(cb: Callback<never>, message: string): boolean {
  cb(requestError(message, { error: 'invalid_request', error_description: message }));
  return true;
}

/**
 * The Authentication API without any browser state: URLs, the token endpoint, database connections,
 * passwordless start and `/userinfo`. `WebAuth` builds on it (`webAuth.client`).
 */
export class Authentication {
  readonly baseOptions: WebAuthOptions & { scope: string; leeway: number };
  readonly base: string;
  readonly dbConnection: {
    signup: (options: Record<string, unknown>, cb: Callback<Record<string, unknown>>) => void;
    changePassword: (options: { connection?: string; email?: string }, cb: Callback<string>) => void;
  };
  readonly passwordless: {
    start: (options: Record<string, unknown>, cb: Callback<Record<string, unknown>>) => void;
    verify: (options: Record<string, unknown>, cb: Callback<Record<string, unknown>>) => void;
    buildVerifyUrl: (options: Record<string, unknown>) => string;
  };

  constructor(options: WebAuthOptions) {
    this.baseOptions = resolveOptions(options);
    this.base = baseUrl(this.baseOptions.domain);
    this.dbConnection = { signup: this.#signupUser.bind(this), changePassword: this.#requestPasswordChange.bind(this) };
    this.passwordless = { start: this.#startPasswordless.bind(this), verify: this.#verifyPasswordless.bind(this), buildVerifyUrl: this.#passwordlessVerifyUrl.bind(this) };
  }

  /** The `/authorize` URL for these options over the instance's defaults (no transaction is stored). */
  buildAuthorizeUrl(options: Record<string, unknown> = {}): string {
    return urlWithQuery(this.base, '/authorize', authorizeParameters(requestWithDefaults(this.baseOptions, options)));
  }

  /** `/v2/logout`; with `clientID`, `returnTo` must be one of that application's allowed logout URLs. */
  buildLogoutUrl(options: { returnTo?: string; clientID?: string; federated?: boolean } = {}): string {
    const url = urlWithQuery(this.base, '/v2/logout', { returnTo: options.returnTo, client_id: options.clientID });
    return options.federated ? `${url}${url.includes('?') ? '&' : '?'}federated` : url;
  }

  /** The user's profile from `/userinfo` (claims as the server names them). */
  userInfo(accessToken: string, cb: Callback<Record<string, unknown>>): void {
    if (typeof accessToken !== 'string' || accessToken === '') {
      missing(cb, 'accessToken parameter is not valid');
      return;
    }
    respond(request(`${this.base}/userinfo`, { method: 'GET', token: accessToken }), cb, (body) => body as Record<string, unknown>);
  }

  /** Any grant at `/oauth/token`; the answer in camelCase. */
  oauthToken(options: Record<string, unknown>, cb: Callback<TokenResult>): void {
    const { clientID, ...rest } = options;
    const body = { client_id: clientID ?? this.baseOptions.clientID, ...toSnakeCase(rest) };
    respond(request(`${this.base}/oauth/token`, { method: 'POST', body }), cb, (answer) => toCamelCase<TokenResult>(answer));
  }

  /** Username and password: the password-realm grant with `realm`, the password grant without. */
  login(options: { username?: string; password?: string; realm?: string; scope?: string; audience?: string }, cb: Callback<TokenResult>): void {
    if (!options?.username) return void missing(cb, 'username option is required');
    if (!options.password) return void missing(cb, 'password option is required');
    const { audience, scope } = this.baseOptions;
    this.oauthToken({ audience, scope, ...options, grantType: options.realm ? PASSWORD_REALM : 'password' }, cb);
  }

  /** The password grant without a realm: the tenant's default directory. */
  loginWithDefaultDirectory(options: { username?: string; password?: string; scope?: string; audience?: string }, cb: Callback<TokenResult>): void {
    const { realm: _realm, ...rest } = options as Record<string, unknown>;
    this.login(rest, cb);
  }

  /** Checks a one-time code without spending it (`/passwordless/verify`). */
  #verifyPasswordless(options: Record<string, unknown>, cb: Callback<Record<string, unknown>>): void {
    const { connection, verificationCode, email, phoneNumber } = options as { connection?: string; verificationCode?: string; email?: string; phoneNumber?: string };
    if (!connection) return void missing(cb, 'connection option is required');
    if (!verificationCode) return void missing(cb, 'verificationCode option is required');
    if ((email === undefined) === (phoneNumber === undefined)) return void missing(cb, 'exactly one of email or phoneNumber is required');
    const body = { client_id: this.baseOptions.clientID, connection, verification_code: verificationCode, ...(email !== undefined ? { email } : { phone_number: phoneNumber }) };
    respond(request(`${this.base}/passwordless/verify`, { method: 'POST', body }), cb, (answer) => answer as Record<string, unknown>);
  }

  /** `/passwordless/verify_redirect`: spends the code and answers like `/authorize` with these parameters. */
  #passwordlessVerifyUrl(options: Record<string, unknown>): string {
    const { verificationCode, email, phoneNumber, ...authorize } = options;
    const params = authorizeParameters({ clientID: this.baseOptions.clientID, ...authorize });
    return urlWithQuery(this.base, '/passwordless/verify_redirect', { ...params, verification_code: verificationCode, email, phone_number: phoneNumber });
  }

  #signupUser(options: Record<string, unknown>, cb: Callback<Record<string, unknown>>): void {
    if (!options?.connection) return void missing(cb, 'connection option is required');
    if (!options.email) return void missing(cb, 'email option is required');
    if (!options.password) return void missing(cb, 'password option is required');
    const { userMetadata, user_metadata: snakeMetadata, ...rest } = options;
    const body = { client_id: this.baseOptions.clientID, ...toSnakeCase(rest), ...((userMetadata ?? snakeMetadata) !== undefined ? { user_metadata: userMetadata ?? snakeMetadata } : {}) };
    respond(request(`${this.base}/dbconnections/signup`, { method: 'POST', body }), cb, (answer) => toCamelCase(answer, ['user_metadata']));
  }

  #requestPasswordChange(options: { connection?: string; email?: string }, cb: Callback<string>): void {
    if (!options?.connection) return void missing(cb, 'connection option is required');
    if (!options.email) return void missing(cb, 'email option is required');
    const body = { client_id: this.baseOptions.clientID, connection: options.connection, email: options.email };
    respond(request(`${this.base}/dbconnections/change_password`, { method: 'POST', body }), cb, (answer) => String(answer));
  }

  /** `/passwordless/start`; `authParams` carries how a link, once clicked, should answer. */
  #startPasswordless(options: Record<string, unknown>, cb: Callback<Record<string, unknown>>): void {
    const { connection, send, email, phoneNumber, authParams } = options as { connection?: string; send?: string; email?: string; phoneNumber?: string; authParams?: Record<string, unknown> };
    if (!connection) return void missing(cb, 'connection option is required');
    if ((email === undefined) === (phoneNumber === undefined)) return void missing(cb, 'exactly one of email or phoneNumber is required');
    const body = {
      client_id: this.baseOptions.clientID,
      connection,
      send: send ?? 'link',
      ...(email !== undefined ? { email } : { phone_number: phoneNumber }),
      ...(authParams ? { authParams: authorizeParameters(authParams) } : {}),
    };
    respond(request(`${this.base}/passwordless/start`, { method: 'POST', body }), cb, (answer) => toCamelCase(answer));
  }
}
