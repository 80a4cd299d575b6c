import type { GuardianSettingsService } from '../../services/mfa/guardian-settings.js';
import type { SignInPath, StageCheck } from '../sign-in-pipeline.js';

/** The `acr_values` value that asks for a second factor (OpenID PAPE). */
export const MFA_ACR = 'http://schemas.openid.net/pape/policies/2007/06/multi-factor';

/** The factors a user can enroll and answer a challenge with (WebAuthn on the hosted pages). */
const USABLE_FACTORS = ['otp', 'sms', 'email', 'webauthn-roaming', 'webauthn-platform'] as const;

/** The sign-ins of the token endpoint that can answer `mfa_required` (a refresh continues one that passed already). */
export const MFA_TOKEN_PATHS: ReadonlySet<SignInPath> = new Set(['password-grant', 'password-realm-grant', 'passwordless-otp-grant']);

export const asksForMfa = (acrValues: string | undefined) => (acrValues ?? '').split(' ').includes(MFA_ACR);

/**
 * Why a sign-in (or an SSO session, by the `amr` it was started with) needs a second factor it does not have: none
 * when `amr` has `mfa` already. (An Action's `api.multifactor.enable` is known only by running the actions.)
 */
export async function mfaReasons(settings: GuardianSettingsService, amr: readonly string[], acrValues: string | undefined): Promise<string[]> {
  if (amr.includes('mfa')) return [];
  const reasons: string[] = [];
  if (asksForMfa(acrValues)) reasons.push('acr_values');
  if ((await settings.policies()).includes('all-applications')) {
    for (const factor of USABLE_FACTORS) {
      if (await settings.enabled(factor)) {
        reasons.push('policy');
        break;
      }
    }
  }
  return reasons;
}

/**
 * The `multi-factor` stage (oauth/sign-in-pipeline.ts): a second factor is required when the tenant's policy is
 * `all-applications` (and a factor users can use is enabled: a policy with nothing to enroll would only lock
 * everyone out), or when the request's `acr_values` asks for it, whatever the policy. A sign-in whose `amr` has
 * `mfa` passed it already (the MFA grants run the stages again after the second factor).
 */
export function multiFactorRequirement(settings: GuardianSettingsService): StageCheck {
  return async (attempt) => {
    const reasons = await mfaReasons(settings, attempt.amr, attempt.acrValues);
    if (reasons.length === 0) return;
    if (attempt.decisions) attempt.decisions.multiFactor = { reasons };
    // Browser sign-ins are refused too (oauthRefusal words it): no hosted challenge yet, and never a silent skip.
    return { reason: 'mfa-required' };
  };
}
