import { PASSWORD_REALM, PASSWORDLESS_OTP } from '../authentication/authentication.js';
import { invalidRequest, type Callback } from '../helper/errors.js';
import { originOf } from '../helper/url.js';
import type { AuthResult } from './auth-result.js';
import { answerOpener, authorizeInPopup, preloadPopup } from './popup.js';

type Options = Record<string, unknown>;

/** What the popup methods need of their `WebAuth`, handed over as closures so that it stays private there. */
export interface PopupContext {
  requestOptions(options: Options): Options & { responseType: string; redirectUri?: string };
  transactionUrl(options: Options): string;
  parseHash(options: { hash: string }, cb: Callback<AuthResult | null>): void;
  signup(options: Options, cb: Callback<Record<string, unknown>>): void;
  silentAuthorize(options: Options, cb: Callback<AuthResult>): void;
  crossOriginLogin(credentials: Options, options: Options, cb: Callback<never>, spendTicket: (authorizeOptions: Options) => void): void;
}

export interface PopupMethods {
  authorize: (options: Options, cb: Callback<AuthResult>) => void;
  callback: (options?: { hash?: string }) => void;
  preload: (options?: { popupOptions?: Record<string, number> }) => PreloadedPopup;
  loginWithCredentials: (options: Options, cb: Callback<AuthResult>) => void;
  signupAndLogin: (options: Options, cb: Callback<AuthResult>) => void;
  passwordlessVerify: (options: Options, cb: Callback<AuthResult>) => void;
}

/**
 * What `popup.preload()` returns: the reference library's applications hand it back as `popupHandler` to the
 * call that should use the window.
 */
export interface PreloadedPopup {
  readonly window: Window | null;
}

function isPreloadedPopup(value: unknown): value is PreloadedPopup {
  return typeof value === 'object' && value !== null && 'window' in value;
}

/** `webAuth.popup`: logins that leave the application's page where it is. */
export function popupMethods(context: PopupContext): PopupMethods {
  /**
   * The popup opened by the last `preload()` (in a click handler, where browsers allow it). The next
   * `popup.authorize` uses the one named by its `popupHandler` option, else this one.
   */
  let preloaded: Window | null = null;

  /** Embedded credentials, then the login ticket spent in a hidden frame: no window opens at all. */
  function loginWithCredentials(options: Options, cb: Callback<AuthResult>): void {
    const username = (options?.username ?? options?.email) as string | undefined;
    const realm = (options?.realm ?? options?.connection) as string | undefined;
    if (!username || !options.password || !realm) {
      return void cb(invalidRequest('username (or email), password and realm (or connection) are required', { legacyNames: true }));
    }
    context.crossOriginLogin({ credential_type: PASSWORD_REALM, username, password: options.password, realm }, options, cb, (authorizeOptions) =>
      context.silentAuthorize(authorizeOptions, cb),
    );
  }

  return {
    /** `/authorize` in a popup; its redirect page hands the hash back (`callback()`), which is then parsed here. */
    authorize(options, cb) {
      const merged = context.requestOptions({ ...options, popupOptions: undefined, popupHandler: undefined });
      const redirectOrigin = typeof merged.redirectUri === 'string' ? originOf(merged.redirectUri) : undefined;
      if (!redirectOrigin) return void cb(invalidRequest('redirectUri option is required for popup.authorize'));
      const url = context.transactionUrl({ ...merged, responseMode: merged.responseMode === 'query' ? 'fragment' : merged.responseMode });
      const reused = isPreloadedPopup(options.popupHandler) ? options.popupHandler.window : preloaded;
      preloaded = null;
      authorizeInPopup(url, redirectOrigin, { features: options.popupOptions as Record<string, number> | undefined, window: reused }, (err, hash) => {
        if (err) return cb(err);
        context.parseHash({ hash: hash ?? '' }, (parseErr, result) => (parseErr ? cb(parseErr) : cb(null, result ?? undefined)));
      });
    },

    /** On the popup's redirect page: hands the result back to the page that opened the popup. */
    callback(options = {}) {
      answerOpener(options.hash ?? window.location.hash);
    },

    preload(options = {}) {
      preloaded = preloadPopup(options.popupOptions);
      return { window: preloaded };
    },

    loginWithCredentials,

    signupAndLogin(options, cb) {
      context.signup(options, (err) => {
        if (err) return cb(err);
        loginWithCredentials(options, (loginErr, result) => {
          if (!loginErr) return cb(null, result);
          // The account exists now: the application should offer a plain login, not the signup again.
          loginErr.errorInfo = {
            error_code: 'login_error',
            message: 'Your account was created successfully, but we could not log you in automatically. Please try logging in with your new credentials.',
          };
          cb(loginErr);
        });
      });
    },

    /** Passwordless with a code, completed in a hidden frame (no redirect of the page). */
    passwordlessVerify(options, cb) {
      const { connection, verificationCode, email, phoneNumber, ...rest } = (options ?? {}) as Options;
      const username = (email ?? phoneNumber) as string | undefined;
      if (!connection || !verificationCode || !username) {
        return void cb(invalidRequest('connection, verificationCode and email or phoneNumber are required', { legacyNames: true }));
      }
      context.crossOriginLogin({ credential_type: PASSWORDLESS_OTP, username, otp: String(verificationCode), realm: connection }, rest, cb, (authorizeOptions) =>
        context.silentAuthorize(authorizeOptions, cb),
      );
    },
  };
}
