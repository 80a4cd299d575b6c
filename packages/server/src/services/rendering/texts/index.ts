/**
 * The texts of the hosted screens in the platform's custom-text keys: each screen's defaults in a built-in
 * language, with the tenant's overrides on top. The same record is the standard page's wording and the
 * `screen.texts` an advanced-mode bundle reads.
 */
import { de } from './de.js';
import { en, type LanguageTexts } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { ja } from './ja.js';
import { builtInLocale, type BuiltInLocale } from './locales.js';
import { ptBR } from './pt-br.js';

export { BUILT_IN_LOCALES, pickLocale, type BuiltInLocale } from './locales.js';

export type Screen = keyof LanguageTexts['screens'];
type SharedGroup = keyof LanguageTexts['shared'];

const LANGUAGES: Readonly<Record<BuiltInLocale, LanguageTexts>> = { en, fr, de, es, 'pt-BR': ptBR, ja };

/** The platform prompt each screen belongs to (custom texts and rendering configurations are stored per prompt). */
export const PROMPT_OF_SCREEN: Readonly<Record<Screen, string>> = {
  login: 'login',
  'login-id': 'login-id',
  'login-password': 'login-password',
  signup: 'signup',
  'signup-id': 'signup-id',
  'signup-password': 'signup-password',
  'reset-password-request': 'reset-password',
  'reset-password-email': 'reset-password',
  'reset-password': 'reset-password',
  'reset-password-success': 'reset-password',
  'reset-password-error': 'reset-password',
  'login-passwordless-email-code': 'login-passwordless',
  'login-passwordless-sms-otp': 'login-passwordless',
  'email-verification-result': 'email-verification',
  logout: 'logout',
  'logout-complete': 'logout',
  'logout-aborted': 'logout',
  consent: 'consent',
  'organization-selection': 'organizations',
  'organization-picker': 'organizations',
  'accept-invitation': 'invitation',
  error: 'common',
  'mfa-begin-enroll-options': 'mfa',
  'mfa-login-options': 'mfa',
  'mfa-otp-enrollment-qr': 'mfa-otp',
  'mfa-otp-enrollment-code': 'mfa-otp',
  'mfa-otp-challenge': 'mfa-otp',
  'mfa-sms-enrollment': 'mfa-sms',
  'mfa-sms-challenge': 'mfa-sms',
  'mfa-email-challenge': 'mfa-email',
  'mfa-recovery-code-enrollment': 'mfa-recovery-code',
  'mfa-recovery-code-challenge': 'mfa-recovery-code',
  'mfa-recovery-code-challenge-new-code': 'mfa-recovery-code',
  'mfa-webauthn-roaming-enrollment': 'mfa-webauthn',
  'mfa-webauthn-roaming-challenge': 'mfa-webauthn',
  'mfa-webauthn-platform-enrollment': 'mfa-webauthn',
  'mfa-webauthn-platform-challenge': 'mfa-webauthn',
  'passkey-enrollment': 'passkeys',
};

/** The shared groups of keys each screen carries before its own keys (which win where both name a key). */
const GROUPS_OF_SCREEN: Readonly<Record<Screen, readonly SharedGroup[]>> = {
  login: ['logo', 'loginIdentifiers', 'identifierVariants', 'loginForm', 'invitation', 'passwordVisibility', 'credentialErrors'],
  'login-id': ['logo', 'loginIdentifiers', 'identifierVariants', 'loginForm', 'credentialErrors'],
  'login-password': ['logo', 'loginIdentifiers', 'loginForm', 'invitation', 'passwordVisibility', 'credentialErrors'],
  signup: ['logo', 'signupForm', 'passwordVisibility', 'newPassword', 'signupErrors', 'signupPasswordErrors'],
  'signup-id': ['logo', 'signupForm', 'signupErrors'],
  'signup-password': ['logo', 'signupForm', 'passwordVisibility', 'newPassword', 'signupErrors', 'signupPasswordErrors'],
  'reset-password-request': ['logo', 'identifierVariants', 'ticketErrors'],
  'reset-password-email': [],
  'reset-password': ['logo', 'passwordVisibility', 'newPassword', 'ticketErrors'],
  'reset-password-success': [],
  'reset-password-error': ['ticketErrors'],
  'login-passwordless-email-code': ['logo', 'codeEntry'],
  'login-passwordless-sms-otp': ['logo', 'codeEntry'],
  'email-verification-result': ['ticketErrors'],
  logout: ['logo'],
  'logout-complete': ['logo'],
  'logout-aborted': ['logo'],
  consent: ['logo'],
  'organization-selection': ['logo'],
  'organization-picker': ['logo'],
  'accept-invitation': ['logo'],
  error: ['logo'],
  'mfa-begin-enroll-options': ['logo', 'mfaCommon', 'mfaFactorNames'],
  'mfa-login-options': ['logo', 'mfaCommon', 'mfaFactorNames'],
  'mfa-otp-enrollment-qr': ['logo', 'mfaCommon'],
  'mfa-otp-enrollment-code': ['logo', 'mfaCommon'],
  'mfa-otp-challenge': ['logo', 'mfaCommon'],
  'mfa-sms-enrollment': ['logo', 'mfaCommon'],
  'mfa-sms-challenge': ['logo', 'mfaCommon'],
  'mfa-email-challenge': ['logo', 'mfaCommon'],
  'mfa-recovery-code-enrollment': ['logo', 'mfaCommon'],
  'mfa-recovery-code-challenge': ['logo', 'mfaCommon'],
  'mfa-recovery-code-challenge-new-code': ['logo', 'mfaCommon'],
  'mfa-webauthn-roaming-enrollment': ['logo', 'mfaCommon'],
  'mfa-webauthn-roaming-challenge': ['logo', 'mfaCommon'],
  'mfa-webauthn-platform-enrollment': ['logo', 'mfaCommon'],
  'mfa-webauthn-platform-challenge': ['logo', 'mfaCommon'],
  'passkey-enrollment': ['logo', 'mfaCommon'],
};

export const SCREENS = Object.keys(PROMPT_OF_SCREEN) as Screen[];

export function isScreen(name: string): name is Screen {
  return Object.hasOwn(PROMPT_OF_SCREEN, name);
}

/** The screens of a prompt that have texts here; none for a prompt Latchkey does not render. */
export function screensOfPrompt(prompt: string): Screen[] {
  return SCREENS.filter((screen) => PROMPT_OF_SCREEN[screen] === prompt);
}

/** A screen's built-in texts in a locale (matched ignoring case); English for a locale Latchkey does not ship. */
export function defaultTexts(screen: Screen, locale: string): Record<string, string> {
  const language = LANGUAGES[builtInLocale(locale) ?? 'en'];
  const texts: Record<string, string> = {};
  for (const group of GROUPS_OF_SCREEN[screen]) Object.assign(texts, language.shared[group]);
  return Object.assign(texts, language.screens[screen]);
}

/**
 * The texts a screen shows: the defaults with the tenant's overrides for that screen on top. An override of a key
 * the defaults lack is kept, since the platform lets tenants add keys for their own bundles to read.
 */
export function screenTexts(screen: Screen, locale: string, overrides: Record<string, string> | undefined): Record<string, string> {
  return { ...defaultTexts(screen, locale), ...overrides };
}

/**
 * Replaces each `${name}` by `vars[name]`; a placeholder without a value stays as written, so a tenant's typo
 * shows instead of vanishing. The result is plain text: callers escape it for where they write it.
 */
export function fillText(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{([A-Za-z0-9_]+)\}/g, (placeholder, name: string) => (Object.hasOwn(vars, name) ? (vars[name] ?? placeholder) : placeholder));
}
