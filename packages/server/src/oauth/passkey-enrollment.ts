import { passkeySettingsOf } from '../services/connection-options/passkeys.js';
import type { OAuthConfig } from '../services/config-cache.js';
import type { Storage } from '../storage/storage.js';
import type { StageCheck } from './sign-in-pipeline.js';

/** The `app_metadata` flag of a user who asked not to be offered a passkey again ("don't show again"). */
export const PASSKEY_ENROLLMENT_DECLINED = 'passkey_enrollment_declined';

export interface PasskeyEnrollmentDeps {
  storage: Storage;
  tenantId: string;
  config: Pick<OAuthConfig, 'connectionNamed'>;
}

/**
 * Progressive enrollment (a check of the `multi-factor` stage, after the second factor's): a login on the hosted
 * page with a password, on a connection that enables passkeys and their progressive enrollment, by a user who has no
 * passkey and did not decline them for good, stops to offer one, once per login. It comes after the account checks
 * and the second factor on purpose: a passkey signs in alone (and counts as multi-factor), so only a user who passed
 * everything a login asks may create one.
 */
export function progressivePasskeyEnrollment(deps: PasskeyEnrollmentDeps): StageCheck {
  return async (attempt) => {
    if (attempt.path !== 'login-page' || !attempt.amr.includes('pwd') || attempt.passkeyEnrollmentSettled || attempt.connection === undefined) return;
    const connection = await deps.config.connectionNamed(attempt.connection);
    const settings = connection && passkeySettingsOf(connection.data);
    if (!settings?.enabled || !settings.progressiveEnrollment) return;
    const user = await deps.storage.users.get(deps.tenantId, attempt.userId);
    if (!user || user.data.app_metadata?.[PASSKEY_ENROLLMENT_DECLINED] === true) return;
    const authenticators = await deps.storage.authenticators.listOfUser(deps.tenantId, attempt.userId);
    if (authenticators.some((record) => record.type === 'passkey' && record.status === 'confirmed')) return;
    return { reason: 'passkey-enrollment' };
  };
}
