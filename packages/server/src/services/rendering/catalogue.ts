/**
 * The platform's prompts and the screens under each. Rendering configurations exist per (prompt, screen)
 * pair from this catalogue only.
 */
export const PROMPT_SCREENS: Readonly<Record<string, readonly string[]>> = {
  login: ['login'],
  'login-id': ['login-id'],
  'login-password': ['login-password'],
  'login-passwordless': ['login-passwordless-email-code', 'login-passwordless-email-link', 'login-passwordless-sms-otp'],
  'login-email-verification': ['login-email-verification'],
  signup: ['signup'],
  'signup-id': ['signup-id'],
  'signup-password': ['signup-password'],
  'phone-identifier-enrollment': ['phone-identifier-enrollment'],
  'phone-identifier-challenge': ['phone-identifier-challenge'],
  'email-identifier-challenge': ['email-identifier-challenge'],
  'reset-password': [
    'reset-password-request',
    'reset-password-email',
    'reset-password',
    'reset-password-success',
    'reset-password-error',
    'reset-password-mfa-email-challenge',
    'reset-password-mfa-otp-challenge',
    'reset-password-mfa-phone-challenge',
    'reset-password-mfa-push-challenge-push',
    'reset-password-mfa-recovery-code-challenge',
    'reset-password-mfa-sms-challenge',
    'reset-password-mfa-voice-challenge',
    'reset-password-mfa-webauthn-platform-challenge',
    'reset-password-mfa-webauthn-roaming-challenge',
  ],
  'custom-form': ['custom-form'],
  consent: ['consent', 'consent-tenant-scopes'],
  'customized-consent': ['customized-consent'],
  logout: ['logout', 'logout-complete', 'logout-aborted'],
  'mfa-push': [
    'mfa-push-welcome',
    'mfa-push-enrollment-qr',
    'mfa-push-enrollment-code',
    'mfa-push-success',
    'mfa-push-challenge-push',
    'mfa-push-list',
  ],
  'mfa-otp': ['mfa-otp-enrollment-qr', 'mfa-otp-enrollment-code', 'mfa-otp-challenge'],
  'mfa-voice': ['mfa-voice-enrollment', 'mfa-voice-challenge'],
  'mfa-phone': ['mfa-phone-challenge', 'mfa-phone-enrollment'],
  'mfa-webauthn': [
    'mfa-webauthn-platform-enrollment',
    'mfa-webauthn-roaming-enrollment',
    'mfa-webauthn-platform-challenge',
    'mfa-webauthn-roaming-challenge',
    'mfa-webauthn-change-key-nickname',
    'mfa-webauthn-enrollment-success',
    'mfa-webauthn-error',
    'mfa-webauthn-not-available-error',
  ],
  'mfa-sms': ['mfa-country-codes', 'mfa-sms-enrollment', 'mfa-sms-challenge', 'mfa-sms-list'],
  'mfa-email': ['mfa-email-challenge', 'mfa-email-list'],
  'mfa-recovery-code': ['mfa-recovery-code-enrollment', 'mfa-recovery-code-challenge-new-code', 'mfa-recovery-code-challenge'],
  mfa: ['mfa-detect-browser-capabilities', 'mfa-enroll-result', 'mfa-login-options', 'mfa-begin-enroll-options'],
  status: ['status'],
  'device-flow': [
    'device-code-activation',
    'device-code-activation-allowed',
    'device-code-activation-denied',
    'device-code-confirmation',
  ],
  'email-verification': ['email-verification-result'],
  'email-otp-challenge': ['email-otp-challenge'],
  organizations: ['organization-selection', 'organization-picker', 'pre-login-organization-picker'],
  invitation: ['accept-invitation'],
  common: ['redeem-ticket'],
  passkeys: ['passkey-enrollment', 'passkey-enrollment-local'],
  captcha: ['interstitial-captcha'],
  'brute-force-protection': [
    'brute-force-protection-unblock',
    'brute-force-protection-unblock-success',
    'brute-force-protection-unblock-failure',
  ],
  'async-approval-flow': ['async-approval-error', 'async-approval-accepted', 'async-approval-denied', 'async-approval-wrong-user'],
  confirmation: ['confirmation'],
};

export type CatalogueCheck = { ok: true } | { ok: false; reason: 'unknown_prompt' | 'unknown_screen' };

export function checkPromptScreen(prompt: string, screen: string): CatalogueCheck {
  const screens = Object.hasOwn(PROMPT_SCREENS, prompt) ? PROMPT_SCREENS[prompt] : undefined;
  if (!screens) return { ok: false, reason: 'unknown_prompt' };
  return screens.includes(screen) ? { ok: true } : { ok: false, reason: 'unknown_screen' };
}
