import { authorizationCodeGrant } from './authorization-code.js';
import { clientCredentialsGrant } from './client-credentials.js';
import type { Grant } from './grant.js';
import { mfaOobGrant, mfaOtpGrant, mfaRecoveryCodeGrant } from './mfa.js';
import { passwordGrant, passwordRealmGrant } from './password-realm.js';
import { passwordlessOtpGrant } from './passwordless-otp.js';
import { refreshTokenGrant } from './refresh-token.js';

/** Grant types by their wire name. */
export const GRANTS: ReadonlyMap<string, Grant> = new Map(
  [clientCredentialsGrant, authorizationCodeGrant, refreshTokenGrant, passwordRealmGrant, passwordGrant, passwordlessOtpGrant, mfaOtpGrant, mfaOobGrant, mfaRecoveryCodeGrant].map((grant) => [grant.grantType, grant]),
);
