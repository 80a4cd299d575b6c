import type { ScopeShown } from '../../../oauth/consent.js';
import type { BrandingSettings } from '../../../services/branding.js';
import type { PolicyRule } from '../../../services/password-policy.js';
import type { HostedScreen } from '../screens.js';

/** JSON data, as the screen context holds it. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type Tree = { [key: string]: Json };

/** An organization as the screens show it. */
export interface OrganizationShown {
  id: string;
  name: string;
  display_name?: string;
  branding?: { logo_url?: string; colors?: { primary?: string; page_background?: string } };
}

/** An error of the screen, as `transaction.errors` carries it. */
export interface ScreenError {
  code: string;
  field?: string;
  message: string;
}

/** The links of a screen, under the platform's names (`screen.links`); `application` is Latchkey's own. */
export interface ScreenLinks {
  signup?: string;
  login?: string;
  reset_password?: string;
  edit_identifier?: string;
  back?: string;
  /** Where "Back to the application" leads once the password is changed (not in the context). */
  application?: string;
}

/** Everything a hosted page shows: built by the routes, rendered without further lookups. */
export interface PageModel {
  prompt: string;
  screen: HostedScreen;
  locale: string;
  /** Where the form posts; empty for screens without a form. */
  action: string;
  /** Hidden inputs of the form (the transaction's state). */
  hidden: Record<string, string>;
  /** What the user typed or the application suggested (never a password). */
  values: Record<string, string>;
  /** `transaction.state` of the context. */
  state?: string;
  errorCode?: string;
  /** Shown on the error page, and under a form's message (a password policy's rules). */
  errorDescription?: string;
  errors: ScreenError[];
  links: ScreenLinks;
  /** `screen.data` of the context. */
  screenData: Record<string, string>;
  /** The screen's texts in the page's language, the tenant's custom text applied, placeholders filled. */
  texts: Record<string, string>;
  connection?: { name: string; requiresUsername: boolean };
  /** `transaction.connection` of the context. */
  connectionContext?: Tree;
  /** The federated connections the screen offers (`transaction.alternate_connections`; buttons on our pages). */
  alternateConnections?: AlternateConnection[];
  /** The rules a new password must follow (signup, reset), shown before the first attempt. */
  passwordPolicy?: PasswordPolicyView;
  /** The logged-in user's name, which the logout and consent screens greet (`userSalute`, `pickerTitle`); absent when unknown. */
  userName?: string;
  /** The scopes the consent screen asks for (`screen.data.scopes`). */
  scopes?: ScopeShown[];
  /** The organization the login is for (`organization` of the context). */
  organization?: OrganizationShown & { usage: string; metadata?: Record<string, string> };
  /** The organizations a signed-in user may choose among (`user.organizations`, the organization picker). */
  organizations?: OrganizationShown[];
  /** The signed-in user, on the screens after login (`user` of the context: consent, the organization picker). */
  user?: { id: string; email?: string; username?: string; picture?: string; enrolled_factors?: string[] };
  /**
   * What the multi-factor screens show beyond text: their `screen.data` (a QR code, a code to copy, a masked phone
   * number, WebAuthn options), merged into the context's, and the factors an options screen offers.
   */
  mfa?: { data: Tree; factors?: string[]; canPickAnother?: boolean };
  /**
   * login-id's passkey login: the WebAuthn request options (`screen.data.passkey.public_key`, discoverable: no
   * credential listed) and how the page offers it (a button, the browser's autofill, or both).
   */
  passkeyLogin?: { publicKey: Tree; challengeUi: 'both' | 'autofill' | 'button' };
  client: { client_id: string; name: string; logo_uri?: string; description?: string; metadata: Record<string, string> };
  tenant: { name: string; friendly_name: string; picture_url?: string; enabled_locales: string[] };
  /** The tenant's branding (`GET /api/v2/branding`): our pages' logo, colours and favicon, and `branding.settings`. */
  branding?: BrandingSettings;
  /** The authorization request's parameters the page may echo (login_hint, screen_hint, ui_locales, ext-*). */
  authorizationParams: Record<string, string>;
  renderingConfig?: RenderingConfig;
  /** The tenant's page template, with `{%- auth0:head -%}` and `{%- auth0:widget -%}` placeholders. */
  pageTemplate?: string;
  cspNonce: string;
}

/** A federated connection a login or signup screen offers, with what its button shows. */
export interface AlternateConnection {
  name: string;
  strategy: string;
  displayName: string;
  /** An https URL only: the page loads it as an image. */
  iconUrl?: string;
  /** Whether our pages show a button for it (a bundle reads it as `options.show_as_button`). */
  showAsButton: boolean;
  /** The connection's metadata, which the platform's SDK reads as `metadata` (absent when it has none). */
  metadata?: Record<string, string>;
}

/**
 * A connection's password rules as a page lists them: the strength rules by code with their numbers (the widget
 * words them in the page's language with the `passwordRule*` texts), then flags.
 */
export interface PasswordPolicyView {
  rules: PolicyRule[];
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
