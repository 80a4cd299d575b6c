/**
 * The hosted screens' built-in texts (services/rendering/texts): every language carries English's keys on every
 * screen, English carries the platform's keys plus the Latchkey keys listed here, and the locale choice, the
 * tenant's overrides and the placeholder filling behave as the renderer expects.
 */
import { describe, expect, it } from 'vitest';
import { checkPromptScreen } from '../src/services/rendering/catalogue.js';
import {
  BUILT_IN_LOCALES,
  PROMPT_OF_SCREEN,
  SCREENS,
  defaultTexts,
  fillText,
  isScreen,
  pickLocale,
  screenTexts,
  screensOfPrompt,
  type Screen,
} from '../src/services/rendering/texts/index.js';

const words = (list: string): string[] => list.split(/\s+/).filter(Boolean);

const CREDENTIAL_ERRORS = `wrong-credentials wrong-email-credentials wrong-username-credentials wrong-phone-credentials
  wrong-email-username-credentials wrong-email-phone-username-credentials wrong-email-phone-credentials
  wrong-phone-username-credentials invalid-code invalid-expired-code custom-script-error-code auth0-users-validation
  authentication-failure invalid-connection ip-blocked no-db-connection password-breached user-blocked same-user-login
  no-email no-password no-username`;
const IDENTIFIER_PLACEHOLDERS = `usernamePlaceholder emailPlaceholder phonePlaceholder usernameOnlyPlaceholder
  phoneOrUsernameOrEmailPlaceholder phoneOrEmailPlaceholder phoneOrUsernamePlaceholder usernameOrEmailPlaceholder`;
const SIGNUP_UI = `pageTitle title description logoAltText separatorText buttonText federatedConnectionButtonText
  loginActionLinkText loginActionText emailPlaceholder passwordPlaceholder usernamePlaceholder phonePlaceholder
  emailOptionalPlaceholder usernameOptionalPlaceholder phoneOptionalPlaceholder passwordSecurityText`;
const SIGNUP_ERRORS = `email-in-use password-too-weak password-policy-not-conformant password-too-common
  password-previously-used password-mismatch invalid-username invalid-username-max-length invalid-username-min-length
  invalid-username-invalid-characters invalid-username-email-not-allowed username-taken custom-script-error-code
  auth0-users-validation invalid-connection ip-blocked ip-signup-blocked no-db-connection invalid-phone-attribute-config
  no-email no-password no-password-reset no-re-enter-password no-username no-identifier`;
const TICKET_ERRORS = 'auth0-users-expired-ticket custom-script-error-code auth0-users-used-ticket auth0-users-validation';
const CODE_ERRORS = 'invalid-verification-code passwordless-authenticator-error passwordless-unknown-error';
const PASSWORD_RULES = `passwordRuleLengthAtLeast passwordRuleShouldContain passwordRuleContainsAtLeast passwordRuleLowerCase
  passwordRuleUpperCase passwordRuleNumbers passwordRuleSpecialCharacters passwordRuleIdenticalChars
  passwordRuleDictionary passwordRulePersonalInfo`;

/** The platform's keys per screen (the ACUL digest §4.5, from the platform's custom-text reference). */
const PLATFORM_KEYS: Record<Screen, string> = {
  login: `pageTitle title description logoAltText separatorText buttonText federatedConnectionButtonText
    signupActionLinkText signupActionText forgotPasswordText editEmailText passwordPlaceholder ${IDENTIFIER_PLACEHOLDERS}
    alertListTitle invitationTitle invitationDescription showPasswordText hidePasswordText ${CREDENTIAL_ERRORS}`,
  'login-id': `pageTitle title description logoAltText separatorText buttonText federatedConnectionButtonText
    signupActionLinkText signupActionText forgotPasswordText editEmailText passwordPlaceholder ${IDENTIFIER_PLACEHOLDERS}
    alertListTitle passkeyButtonText ${CREDENTIAL_ERRORS} invalid-username invalid-login-id invalid-email-phone
    invalid-email-username invalid-phone-username invalid-email-phone-username no-hrd-connection invalid-phone-number
    conflict-password-passkey password-not-allowed passkey-not-allowed no-passkey passkey-authentication-failed invalid-passkey`,
  'login-password': `pageTitle title description separatorText buttonText federatedConnectionButtonText signupActionLinkText
    signupActionText forgotPasswordText passwordPlaceholder usernamePlaceholder emailPlaceholder editEmailText
    editLinkScreenReadableText alertListTitle invitationTitle invitationDescription logoAltText useBiometricsText
    showPasswordText hidePasswordText ${CREDENTIAL_ERRORS}`,
  signup: `${SIGNUP_UI} showPasswordText hidePasswordText accessibilityError accessibilityValid ${SIGNUP_ERRORS}
    password-breached password-contains-user-information`,
  'signup-id': `${SIGNUP_UI} ${SIGNUP_ERRORS} no-hrd-connection invalid-phone-number`,
  'signup-password': `${SIGNUP_UI} showPasswordText hidePasswordText accessibilityError accessibilityValid editEmailText
    editPhoneText editUsernameText editLinkScreenReadableText backButtonText invitationDescription ${SIGNUP_ERRORS}
    password-breached password-contains-user-information invalid-phone-number`,
  'reset-password-request': `pageTitle title backToLoginLinkText buttonText logoAltText descriptionEmail descriptionUsername
    placeholderEmail placeholderUsername emailPlaceholder usernamePlaceholder phonePlaceholder phoneOrUsernameOrEmailPlaceholder
    phoneOrEmailPlaceholder phoneOrUsernamePlaceholder usernameOrEmailPlaceholder emailDescription usernameDescription
    phoneDescription phoneOrUsernameOrEmailDescription phoneOrEmailDescription phoneOrUsernameDescription
    usernameOrEmailDescription ${TICKET_ERRORS} reset-password-error too-many-email too-many-requests no-email no-username
    no-phone_number invalid-phone-format invalid-login-id invalid-email-phone`,
  'reset-password-email': 'pageTitle title backButtonText emailDescription resendLinkText usernameDescription',
  'reset-password': `pageTitle title description buttonText passwordPlaceholder reEnterpasswordPlaceholder passwordSecurityText
    logoAltText showPasswordText hidePasswordText accessibilityError accessibilityValid ${TICKET_ERRORS} no-password-reset
    no-re-enter-password password-contains-user-information password-breached-reset password-mismatch`,
  'reset-password-success': 'pageTitle eventTitle description buttonText',
  'reset-password-error': `pageTitle backToLoginLinkText descriptionExpired descriptionGeneric descriptionUsed eventTitleExpired
    eventTitleGeneric eventTitleUsed ${TICKET_ERRORS} reset-password-error`,
  'login-passwordless-email-code': `pageTitle title description buttonText placeholder resendActionText resendText logoAltText ${CODE_ERRORS}`,
  'login-passwordless-sms-otp': `pageTitle title description buttonText editText placeholder resendActionText resendText logoAltText ${CODE_ERRORS}`,
  'email-verification-result': `pageTitle verifiedTitle errorTitle verifiedDescription alreadyVerifiedDescription
    invalidAccountOrCodeDescription unknownErrorDescription buttonText ${TICKET_ERRORS}`,
  logout: 'pageTitle title userSalute description acceptButtonText declineButtonText logoAltText',
  'logout-complete': '',
  'logout-aborted': '',
  consent: 'pageTitle title pickerTitle messageMultipleTenants messageSingleTenant acceptButtonText declineButtonText logoAltText',
  'organization-selection': 'pageTitle title description placeholder buttonText logoAltText invalid-organization',
  'organization-picker': 'pageTitle title description logoAltText',
  'accept-invitation': 'pageTitle title description buttonText logoAltText',
  error: '',
  // The multi-factor screens: the keys the platform names for them (its MFA custom-text reference).
  'mfa-begin-enroll-options': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures authenticatorNamesOTP authenticatorNamesSMS authenticatorNamesEmail authenticatorNamesWebauthnRoaming authenticatorNamesWebauthnPlatform authenticatorNamesRecoveryCode pageTitle title description',
  'mfa-login-options': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures authenticatorNamesOTP authenticatorNamesSMS authenticatorNamesEmail authenticatorNamesWebauthnRoaming authenticatorNamesWebauthnPlatform authenticatorNamesRecoveryCode pageTitle title description backText',
  'mfa-otp-enrollment-qr': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description placeholder',
  'mfa-otp-enrollment-code': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description placeholder',
  'mfa-otp-challenge': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description placeholder',
  'mfa-sms-enrollment': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description placeholder',
  'mfa-sms-challenge': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description placeholder resendText resendActionText',
  'mfa-email-challenge': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description placeholder resendText resendActionText',
  'mfa-recovery-code-enrollment': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description checkboxText',
  'mfa-recovery-code-challenge': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description placeholder',
  'mfa-recovery-code-challenge-new-code': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description checkboxText',
  'mfa-webauthn-roaming-enrollment': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description',
  'mfa-webauthn-roaming-challenge': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description',
  'mfa-webauthn-platform-enrollment': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description',
  'mfa-webauthn-platform-challenge': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description',
  'passkey-enrollment': 'logoAltText pickAuthenticatorText rememberMeText buttonText invalid-code too-many-failures pageTitle title description',
};

/** The code screens' errors Latchkey reports (page-errors.ts) that the platform names only for other screens, or not at all. */
const CODE_SCREEN_LATCHKEY_KEYS = 'no-code invalid-expired-code invalid-connection user-blocked signup-disabled';

/** Keys Latchkey adds (marked "Latchkey key" in en.ts); anything else English carries must be a platform key. */
const LATCHKEY_KEYS: Record<Screen, string> = {
  login: 'too-many-attempts invalid-email-format',
  'login-id': 'too-many-attempts invalid-email-format signup-disabled',
  'login-password': 'too-many-attempts',
  signup: `invalid-email-format ${PASSWORD_RULES}`,
  'signup-id': 'invalid-email-format',
  'signup-password': `invalid-email-format ${PASSWORD_RULES}`,
  'reset-password-request': 'invalid-email-format',
  'reset-password-email': '',
  'reset-password': `password-too-weak password-too-common ${PASSWORD_RULES}`,
  'reset-password-success': '',
  'reset-password-error': '',
  // The e-mail code screen's link back to login-id (identifierShown in render/widget.ts) is worded as on login-password.
  'login-passwordless-email-code': `${CODE_SCREEN_LATCHKEY_KEYS} editEmailText editLinkScreenReadableText`,
  'login-passwordless-sms-otp': CODE_SCREEN_LATCHKEY_KEYS,
  'email-verification-result': '',
  logout: '',
  'logout-complete': 'pageTitle title description logoAltText',
  'logout-aborted': 'pageTitle title description logoAltText',
  consent: '',
  'organization-selection': '',
  'organization-picker': 'no-organizations',
  'accept-invitation': '',
  error: 'pageTitle title description logoAltText errorCodeLabel invalid-state',
  // The multi-factor screens' own wording (the QR/text switch, a locked factor, a failed WebAuthn ceremony, passkey buttons).
  'mfa-begin-enroll-options': 'no-code mfa-locked webauthn-failed',
  'mfa-login-options': 'no-code mfa-locked webauthn-failed',
  'mfa-otp-enrollment-qr': 'no-code mfa-locked webauthn-failed seeCodeText',
  'mfa-otp-enrollment-code': 'no-code mfa-locked webauthn-failed seeQrText',
  'mfa-otp-challenge': 'no-code mfa-locked webauthn-failed',
  'mfa-sms-enrollment': 'no-code mfa-locked webauthn-failed invalid-phone send-failed',
  'mfa-sms-challenge': 'no-code mfa-locked webauthn-failed',
  'mfa-email-challenge': 'no-code mfa-locked webauthn-failed',
  'mfa-recovery-code-enrollment': 'no-code mfa-locked webauthn-failed no-confirmation',
  'mfa-recovery-code-challenge': 'no-code mfa-locked webauthn-failed',
  'mfa-recovery-code-challenge-new-code': 'no-code mfa-locked webauthn-failed no-confirmation',
  'mfa-webauthn-roaming-enrollment': 'no-code mfa-locked webauthn-failed',
  'mfa-webauthn-roaming-challenge': 'no-code mfa-locked webauthn-failed',
  'mfa-webauthn-platform-enrollment': 'no-code mfa-locked webauthn-failed',
  'mfa-webauthn-platform-challenge': 'no-code mfa-locked webauthn-failed',
  'passkey-enrollment': 'no-code mfa-locked webauthn-failed createButtonText continueButtonText',
};

const placeholders = (text: string): string[] => [...text.matchAll(/\$\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1] ?? '');

describe('built-in screen texts', () => {
  it('English carries every platform key of each screen and, besides them, only the listed Latchkey keys', () => {
    for (const screen of SCREENS) {
      const expected = new Set([...words(PLATFORM_KEYS[screen]), ...words(LATCHKEY_KEYS[screen])]);
      expect(Object.keys(defaultTexts(screen, 'en')).sort(), screen).toEqual([...expected].sort());
    }
  });

  it('every language has exactly English’s keys on every screen, in its own words', () => {
    for (const locale of BUILT_IN_LOCALES) {
      for (const screen of SCREENS) {
        const texts = defaultTexts(screen, locale);
        expect(Object.keys(texts).sort(), `${locale} ${screen}`).toEqual(Object.keys(defaultTexts(screen, 'en')).sort());
        if (locale !== 'en') expect(texts, `${locale} ${screen} is not English`).not.toEqual(defaultTexts(screen, 'en'));
      }
    }
  });

  it('no text is empty, and placeholders are well formed and named in English’s text for the same key', () => {
    for (const locale of BUILT_IN_LOCALES) {
      for (const screen of SCREENS) {
        const english = defaultTexts(screen, 'en');
        for (const [key, text] of Object.entries(defaultTexts(screen, locale))) {
          const where = `${locale} ${screen} ${key}`;
          expect(text.trim(), where).not.toBe('');
          expect(text.replace(/\$\{[A-Za-z0-9_]+\}/g, ''), where).not.toMatch(/\$\{|\{[A-Za-z]+\}/);
          expect(placeholders(english[key] ?? ''), where).toEqual(expect.arrayContaining(placeholders(text)));
        }
      }
    }
  });

  it('maps each screen to its platform prompt, and each prompt back to its screens', () => {
    for (const screen of SCREENS) {
      if (screen === 'error') continue; // Latchkey's own screen: the platform's catalogue has no such pair
      expect(checkPromptScreen(PROMPT_OF_SCREEN[screen], screen), screen).toEqual({ ok: true });
    }
    expect(PROMPT_OF_SCREEN.error).toBe('common');
    expect(screensOfPrompt('reset-password')).toEqual([
      'reset-password-request',
      'reset-password-email',
      'reset-password',
      'reset-password-success',
      'reset-password-error',
    ]);
    expect(screensOfPrompt('login-passwordless')).toEqual(['login-passwordless-email-code', 'login-passwordless-sms-otp']);
    expect(screensOfPrompt('logout')).toEqual(['logout', 'logout-complete', 'logout-aborted']);
    expect(screensOfPrompt('email-verification')).toEqual(['email-verification-result']);
    expect(screensOfPrompt('login-id')).toEqual(['login-id']);
    expect(screensOfPrompt('mfa-otp')).toEqual(['mfa-otp-enrollment-qr', 'mfa-otp-enrollment-code', 'mfa-otp-challenge']);
    expect(screensOfPrompt('mfa-push')).toEqual([]);
    expect(screensOfPrompt('constructor')).toEqual([]);
    expect(isScreen('login-id')).toBe(true);
    expect(isScreen('toString')).toBe(false);
  });

  it('reads a locale ignoring case, and falls back to English for one it does not ship', () => {
    expect(defaultTexts('login', 'PT-br')).toEqual(defaultTexts('login', 'pt-BR'));
    expect(defaultTexts('login', 'pt-BR').title).toBe('Entrar');
    expect(defaultTexts('login', 'xx')).toEqual(defaultTexts('login', 'en'));
    expect(defaultTexts('login', 'constructor')).toEqual(defaultTexts('login', 'en'));
  });
});

describe('pickLocale', () => {
  const all = ['en', 'fr', 'de', 'es', 'pt-BR', 'ja'];

  it('takes the first wanted locale the tenant enabled and Latchkey ships', () => {
    expect(pickLocale('de fr', all)).toBe('de');
    expect(pickLocale('it de', all)).toBe('de');
    expect(pickLocale('ja', ['en', 'fr'])).toBe('en');
    expect(pickLocale('ja fr', ['en', 'fr'])).toBe('fr');
    expect(pickLocale('  fr   de ', all)).toBe('fr');
  });

  it('matches ignoring case and answers in the built-in spelling', () => {
    expect(pickLocale('pt-br', all)).toBe('pt-BR');
    expect(pickLocale('FR', all)).toBe('fr');
    expect(pickLocale('ja', ['JA'])).toBe('ja');
  });

  it('falls back from a regional tag to its language, and from a bare language to its one regional locale', () => {
    expect(pickLocale('fr-CA', all)).toBe('fr');
    expect(pickLocale('fr-CA', ['en', 'de'])).toBe('en');
    expect(pickLocale('pt', all)).toBe('pt-BR');
    expect(pickLocale('pt-PT', all)).toBe('pt-BR');
    expect(pickLocale('en-US', ['de', 'en'])).toBe('en');
    // A neighbouring language beats the next wanted one: the user listed French first.
    expect(pickLocale('fr-CA de', all)).toBe('fr');
  });

  it('without a match, takes the tenant’s first enabled locale Latchkey ships, else English', () => {
    expect(pickLocale(undefined, ['de', 'en'])).toBe('de');
    expect(pickLocale('', ['ja'])).toBe('ja');
    expect(pickLocale('it', ['it', 'es', 'en'])).toBe('es');
    expect(pickLocale('it', ['it'])).toBe('en');
    expect(pickLocale('fr', [])).toBe('en');
    expect(pickLocale(undefined, [])).toBe('en');
  });
});

describe('screenTexts', () => {
  it('puts the tenant’s overrides on top of the defaults, keeping keys the defaults lack', () => {
    const defaults = defaultTexts('login-id', 'fr');
    const texts = screenTexts('login-id', 'fr', { title: 'Bienvenue chez ${companyName}', 'custom-banner': 'Maintenance ce soir' });
    expect(texts.title).toBe('Bienvenue chez ${companyName}');
    expect(texts['custom-banner']).toBe('Maintenance ce soir');
    expect(texts.description).toBe(defaults.description);
    expect(Object.keys(texts).length).toBe(Object.keys(defaults).length + 1);
  });

  it('is the defaults without overrides, and never changes the defaults another page gets', () => {
    expect(screenTexts('signup', 'de', undefined)).toEqual(defaultTexts('signup', 'de'));
    expect(screenTexts('signup', 'de', {})).toEqual(defaultTexts('signup', 'de'));
    const texts = screenTexts('signup', 'de', { title: 'Hallo' });
    texts.description = 'changed by a caller';
    expect(defaultTexts('signup', 'de').title).not.toBe('Hallo');
    expect(defaultTexts('signup', 'de').description).not.toBe('changed by a caller');
  });

  it('gives a bundle the same record the standard page uses, in the page’s language', () => {
    expect(screenTexts('login-password', 'ja', undefined).title).toBe('パスワードを入力');
  });
});

describe('fillText', () => {
  it('replaces every known placeholder, as often as it occurs', () => {
    expect(fillText('Log in to ${companyName} to continue to ${clientName}. ${clientName}!', { companyName: 'Acme', clientName: 'Shop' })).toBe(
      'Log in to Acme to continue to Shop. Shop!',
    );
  });

  it('leaves unknown placeholders as written, inherited names included', () => {
    expect(fillText('Hi ${userName}, ${missing} ${constructor}', { userName: 'Ada' })).toBe('Hi Ada, ${missing} ${constructor}');
    expect(fillText('no placeholders', { a: 'b' })).toBe('no placeholders');
  });

  it('does not escape, and does not expand placeholders inside the values', () => {
    expect(fillText('${a} and ${b}', { a: '<b>&"', b: '${a}' })).toBe('<b>&" and ${a}');
  });

  it('fills an empty value as empty', () => {
    expect(fillText('[${email}]', { email: '' })).toBe('[]');
  });
});
