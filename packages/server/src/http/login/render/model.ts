/** Everything a hosted page shows: built by the routes, rendered without further lookups. */
export interface PageModel {
  prompt: string;
  screen: 'login' | 'signup' | 'reset-password-request' | 'reset-password-email' | 'reset-password' | 'reset-password-success' | 'reset-password-error' | 'error';
  locale: string;
  /** Where the form posts; empty for screens without a form. */
  action: string;
  /** Hidden inputs of the form (transaction state, CSRF token, ticket). */
  hidden: Record<string, string>;
  /** What the user typed or the application suggested (never a password). */
  values: Record<string, string>;
  errorCode?: string;
  /** Shown on the error page only; other screens show the catalogue's message for `errorCode`. */
  errorDescription?: string;
  /** `application`: where "Back to the application" leads once the password is changed. */
  links: { signup?: string; login?: string; resetPassword?: string; application?: string };
  connection?: { name: string; requiresUsername: boolean };
  /** The rules a new password must follow (signup, reset), shown before the first attempt. */
  passwordPolicy?: PasswordPolicyView;
  client: { client_id: string; name: string; logo_uri?: string; description?: string; metadata: Record<string, string> };
  tenant: { name: string; friendly_name: string; picture_url?: string; enabled_locales: string[] };
  /** The authorization request's parameters the page may echo (login_hint, screen_hint, ui_locales, ext-*). */
  authorizationParams: Record<string, string>;
  renderingConfig?: RenderingConfig;
  /** The tenant's page template, with `{%- auth0:head -%}` and `{%- auth0:widget -%}` placeholders. */
  pageTemplate?: string;
  cspNonce: string;
}

/** A connection's password rules as a page lists them: the strength rules as the policy words them, then flags. */
export interface PasswordPolicyView {
  rules: { text: string; items: string[] }[];
  /** Common passwords (and the connection's own words) are refused. */
  dictionary: boolean;
  /** Passwords built on the user's name, user name or e-mail address are refused. */
  personalInfo: boolean;
}

export interface HeadTag {
  tag: string;
  attributes?: Record<string, unknown>;
  content?: string;
}

/** A stored rendering configuration (spec part A), as the renderer reads it. */
export interface RenderingConfig {
  prompt: string;
  screen: string;
  rendering_mode?: 'advanced' | 'standard';
  context_configuration?: string[] | null;
  default_head_tags_disabled?: boolean | null;
  use_page_template?: boolean | null;
  head_tags?: HeadTag[] | null;
  filters?: RenderingFilters | null;
}

type FilterElement = { id: string } | { metadata: Record<string, unknown> };

export interface RenderingFilters {
  match_type?: 'includes_any' | 'excludes_any';
  clients?: FilterElement[];
  organizations?: FilterElement[];
  domains?: FilterElement[];
}
