import type { Callback } from '../helper/errors.js';
import { request, respond } from '../helper/request.js';
import { baseUrl } from '../helper/url.js';

export interface ManagementOptions {
  domain: string;
  /** A user's access token for the Management API (audience `https://<domain>/api/v2/`), current_user scopes. */
  token: string;
}

type User = Record<string, unknown>;

/** The current-user calls of the Management API: the signed-in user reads and edits their own account. */
export class Management {
  readonly baseOptions: ManagementOptions;
  readonly #base: string;

  constructor(options: ManagementOptions) {
    if (options === null || typeof options !== 'object') throw new Error('options parameter is not valid');
    if (typeof options.domain !== 'string' || options.domain === '') throw new Error('domain option is required');
    if (typeof options.token !== 'string' || options.token === '') throw new Error('token option is required');
    this.baseOptions = options;
    this.#base = `${baseUrl(options.domain)}/api/v2`;
  }

  #call<T>(method: 'GET' | 'PATCH' | 'POST', path: string, body: unknown, cb: Callback<T>) {
    respond(request(`${this.#base}${path}`, { method, token: this.baseOptions.token, ...(body !== undefined ? { body } : {}) }), cb, (answer) => answer as T);
  }

  /** The user's profile (`userId` as `/userinfo` gives it, `<provider>|<id>`). */
  getUser(userId: string, cb: Callback<User>): void {
    this.#call('GET', `/users/${encodeURIComponent(userId)}`, undefined, cb);
  }

  /** Adds and overwrites keys of `user_metadata` (one level; a null value removes the key). */
  patchUserMetadata(userId: string, userMetadata: Record<string, unknown>, cb: Callback<User>): void {
    this.#call('PATCH', `/users/${encodeURIComponent(userId)}`, { user_metadata: userMetadata }, cb);
  }

  /** Changes root attributes (a current-user token may change only `user_metadata`; others need an admin token). */
  patchUserAttributes(userId: string, attributes: Record<string, unknown>, cb: Callback<User>): void {
    this.#call('PATCH', `/users/${encodeURIComponent(userId)}`, attributes, cb);
  }

  /** Links the account a secondary ID token names into `userId`; answers the identities. */
  linkUser(userId: string, secondaryUserToken: string, cb: Callback<unknown[]>): void {
    this.#call('POST', `/users/${encodeURIComponent(userId)}/identities`, { link_with: secondaryUserToken }, cb);
  }
}
