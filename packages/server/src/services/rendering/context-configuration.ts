/** Context values a screen may be given (spec: context configuration item). */
export const STATIC_CONTEXT_VALUES = [
  'branding.settings',
  'branding.themes.default',
  'client.logo_uri',
  'client.description',
  'organization.display_name',
  'organization.branding',
  'screen.texts',
  'tenant.name',
  'tenant.friendly_name',
  'tenant.logo_url',
  'tenant.enabled_locales',
  'untrusted_data.submitted_form_data',
  'untrusted_data.authorization_params.login_hint',
  'untrusted_data.authorization_params.screen_hint',
  'untrusted_data.authorization_params.ui_locales',
  'user.organizations',
  'transaction.custom_domain.domain',
  'experiment',
] as const;

/** Dynamic values: one of these prefixes followed by a non-empty key without a dot. */
export const DYNAMIC_CONTEXT_PREFIXES = [
  'client.metadata.',
  'organization.metadata.',
  'transaction.custom_domain.domain_metadata.',
  'user.user_metadata.',
  'user.app_metadata.',
  'untrusted_data.authorization_params.ext-',
] as const;

// Only `.` occurs among the metacharacters; escaping more would break the `u`-flag regular expression Ajv builds.
const escape = (text: string) => text.replaceAll('.', '\\.');

/** One pattern for the whole rule, so a bad item gets one clear error rather than one per alternative. */
export const CONTEXT_CONFIGURATION_PATTERN = `^(?:${STATIC_CONTEXT_VALUES.map(escape).join('|')}|(?:${DYNAMIC_CONTEXT_PREFIXES.map(escape).join('|')})[^.]+)$`;
