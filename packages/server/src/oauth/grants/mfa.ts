import { randomId } from '../../crypto/random.js';
import { AccountBlockedAttempts, InvalidRequest, MalformedMfaToken, SuspiciousIp, UnauthorizedClient } from '../errors.js';
import { mfaProtectionKey } from '../mfa/mfa-api.js';
import type { ReadMfaToken } from '../mfa/mfa-tokens.js';
import { splitScope } from '../scopes.js';
import { oauthRefusal, type SignInAttempt } from '../sign-in-pipeline.js';
import type { Grant, GrantContext, TokenResponse } from './grant.js';

export const MFA_OTP_GRANT = 'http://auth0.com/oauth/grant-type/mfa-otp';
export const MFA_OOB_GRANT = 'http://auth0.com/oauth/grant-type/mfa-oob';
export const MFA_RECOVERY_CODE_GRANT = 'http://auth0.com/oauth/grant-type/mfa-recovery-code';

/**
 * The MFA grants finish a sign-in that stopped at `mfa_required`: the mfa_token names it (application, user, what
 * it asked for); the second factor is checked here, and the sign-in stages run again with `mfa` in `amr`, so the
 * password is never hashed a second time (the bench's aim: a TOTP login costs one password hash).
 */
async function finishWithSecondFactor(
  grantType: string,
  context: GrantContext,
  check: (read: ReadMfaToken) => Promise<{ amr: string[]; recoveryCode?: string }>,
): Promise<TokenResponse> {
  const { client, users, params, origin } = context;
  if (!client.data.grant_types.includes(grantType)) throw new UnauthorizedClient(`Grant type '${grantType}' not allowed for the client.`);
  if (!params.mfa_token) throw new InvalidRequest('Missing required parameter: mfa_token');
  const read = await users.mfa.tokens.read(params.mfa_token, client.clientId);
  // Wrong codes count toward brute-force protection: a blocked account is refused before any code is checked.
  const gate = await users.mfa.protection.gate({ identifier: mfaProtectionKey(read.data.userId), ip: origin.ip });
  if (gate === 'blocked') throw new AccountBlockedAttempts();
  if (gate === 'ip_throttled') throw new SuspiciousIp();
  const proved = await check(read);
  // The token is spent by the first grant that completes with it.
  if (!(await users.mfa.tokens.spend(read))) throw new MalformedMfaToken();
  await users.mfa.protection.succeeded({ identifier: mfaProtectionKey(read.data.userId), ip: origin.ip });
  users.events.record({ type: 'gd_auth_succeed', user_id: read.data.userId, client_id: client.clientId, ip: origin.ip });
  const amr = [...new Set([...read.data.amr, ...proved.amr])];
  const attempt: SignInAttempt = {
    path: read.data.path,
    clientId: client.clientId,
    userId: read.data.userId,
    connection: read.data.connection ?? undefined,
    amr,
    origin,
    audience: read.data.audience ?? undefined,
    scope: read.data.scope ?? undefined,
    refuse: oauthRefusal(),
  };
  const issued = await users.signIn.run(attempt, () =>
    users.userTokens.tokenResponse({
      clientId: client.clientId,
      client: client.data,
      userId: read.data.userId,
      scopes: splitScope(read.data.scope ?? undefined),
      audience: read.data.audience ?? undefined,
      authTime: Math.floor(users.now().getTime() / 1000),
      grantId: randomId(32),
      certificateThumbprint: client.certificateThumbprint,
      idTokenSecret: client.secret,
      actionChanges: attempt.decisions?.tokenChanges,
      amr,
    }),
  );
  return proved.recoveryCode !== undefined ? { ...issued, recovery_code: proved.recoveryCode } : issued;
}

const originOf = (context: GrantContext) => ({ ip: context.origin.ip, userAgent: context.origin.userAgent });

/** `mfa_token` + `otp`: a code of the user's authenticator app (one that is being enrolled is confirmed by it). */
export const mfaOtpGrant: Grant = {
  grantType: MFA_OTP_GRANT,
  parameters: ['mfa_token', 'otp'],
  events: { failed: 'feotpft' },
  handle: (context) =>
    finishWithSecondFactor(MFA_OTP_GRANT, context, async (read) => {
      if (!context.params.otp) throw new InvalidRequest('Missing required parameter: otp');
      const record = await context.users.mfa.api.checkOtp(read, context.params.otp, originOf(context));
      await context.users.mfa.authenticators.confirm(record, { client_id: context.client.clientId });
      return { amr: ['mfa', 'otp'] };
    }),
};

/** `mfa_token` + `oob_code` + `binding_code`: the code sent by SMS or e-mail. */
export const mfaOobGrant: Grant = {
  grantType: MFA_OOB_GRANT,
  parameters: ['mfa_token', 'oob_code', 'binding_code'],
  events: { failed: 'feoobft' },
  handle: (context) =>
    finishWithSecondFactor(MFA_OOB_GRANT, context, async (read) => {
      if (!context.params.oob_code) throw new InvalidRequest('Missing required parameter: oob_code');
      if (!context.params.binding_code) throw new InvalidRequest('Missing required parameter: binding_code');
      const record = await context.users.mfa.api.checkOob(read, context.params.oob_code, context.params.binding_code, originOf(context));
      await context.users.mfa.authenticators.confirm(record, { client_id: context.client.clientId });
      return { amr: ['mfa', record.type === 'sms' ? 'sms' : 'email'] };
    }),
};

/** `mfa_token` + `recovery_code`: spends the code and answers the next one in `recovery_code`. */
export const mfaRecoveryCodeGrant: Grant = {
  grantType: MFA_RECOVERY_CODE_GRANT,
  parameters: ['mfa_token', 'recovery_code'],
  events: { failed: 'fercft' },
  handle: (context) =>
    finishWithSecondFactor(MFA_RECOVERY_CODE_GRANT, context, async (read) => {
      if (!context.params.recovery_code) throw new InvalidRequest('Missing required parameter: recovery_code');
      const next = await context.users.mfa.api.useRecoveryCode(read, context.params.recovery_code, originOf(context));
      return { amr: ['mfa'], recoveryCode: next };
    }),
};
