import type { OtpFailure } from '../../services/passwordless.js';
import { BlockedUser, InvalidGrant, InvalidRequest, OAuthError, UnauthorizedClient } from '../errors.js';
import type { Grant } from './grant.js';
import { freshLoginTokens } from './password-realm.js';

export const PASSWORDLESS_OTP_GRANT = 'http://auth0.com/oauth/grant-type/passwordless/otp';

/** The platform's answers to a failed one-time code, shared by the token endpoint and cross-origin login. */
export function otpFailure(failure: OtpFailure, strategy: 'email' | 'sms' | undefined): OAuthError {
  const what = strategy === 'sms' ? 'phone number' : 'email';
  switch (failure) {
    case 'unknown_connection':
      return new InvalidRequest('Unknown realm: no passwordless connection of that name is enabled for this client.');
    case 'blocked':
      return new BlockedUser();
    case 'too_many_tries':
      return new OAuthError('invalid_grant', "You've reached the maximum number of attempts. Please try to login again.", 403);
    case 'signup_disabled':
      return new OAuthError('access_denied', 'Public signup is disabled for this connection.', 403);
    case 'wrong_code':
      return new OAuthError('invalid_grant', `Wrong ${what} or verification code.`, 403);
  }
}

/** The platform's extension grant: a one-time code from `/passwordless/start` (`username`, `otp`, `realm`). */
export const passwordlessOtpGrant: Grant = {
  grantType: PASSWORDLESS_OTP_GRANT,
  parameters: ['username', 'otp', 'realm', 'scope', 'audience'],
  events: { failed: 'fepotpft' },
  async handle({ params, client, users, ip, origin }) {
    if (!client.data.grant_types.includes(PASSWORDLESS_OTP_GRANT)) throw new UnauthorizedClient(`Grant type '${PASSWORDLESS_OTP_GRANT}' not allowed for the client.`);
    for (const name of ['username', 'otp', 'realm'] as const) if (!params[name]) throw new InvalidRequest(`Missing required parameter: ${name}`);
    const checked = await users.passwordless.check({ clientId: client.clientId, connection: params.realm ?? '', address: params.username ?? '', code: params.otp ?? '', spend: true, ip });
    if (!checked.ok) throw otpFailure(checked.failure, params.username?.trim().startsWith('+') ? 'sms' : 'email');
    if (!checked.userId) throw new InvalidGrant('Wrong email or verification code.');
    return freshLoginTokens({ params, client, users, origin }, { path: 'passwordless-otp-grant', userId: checked.userId, connection: checked.connection.name, amr: ['otp'] });
  },
};
