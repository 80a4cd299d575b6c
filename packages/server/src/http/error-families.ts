/**
 * Every error family Latchkey answers with: its body on the wire, where it is answered, which code decides what
 * the caller sees, and where its codes are catalogued. docs/errors.md opens with this list (errors-doc.ts renders
 * it). A family with codes of its own has a catalogue module; the others carry another family's codes.
 */
export interface ErrorFamily {
  readonly family: string;
  /** The body (or page) the caller gets (Markdown). */
  readonly body: string;
  /** The endpoints that answer with it (Markdown). */
  readonly endpoints: string;
  /** The code that shapes it: one serialiser per surface (Markdown). */
  readonly serialiser: string;
  /** Its codes: a catalogue, or which family's codes it carries (Markdown). */
  readonly codes: string;
}

export const ERROR_FAMILIES: readonly ErrorFamily[] = [
  {
    family: 'Authentication API',
    body: '`{error, error_description}` (JSON)',
    endpoints: '`/oauth/token`, `/oauth/revoke`, `/userinfo`, `/passwordless/*`, `/co/*`, and any unknown path',
    serialiser: '`oauthSurface` and `authRateLimit` (http/oauth/surface.ts) for `OAuthError` (oauth/errors.ts)',
    codes: 'its own: [table](#authentication-api-error-error_description), oauth/error-codes.ts',
  },
  {
    family: 'Authorization response',
    body: '`error`, `error_description` and `state` at the redirect URI, in the response mode (query, fragment, form post, web message)',
    endpoints: '`/authorize`, `/login/callback`, the hosted login forms, `/passwordless/verify_redirect`',
    serialiser: '`errorAnswer` (oauth/authorize/flow.ts)',
    codes: 'the Authentication API\'s',
  },
  {
    family: 'Cross-origin login',
    body: '`{error, error_description}`, in the words of the spec\'s table; a browser origin that no application allows gets a plain-text `403 Origin <origin> is not allowed.`',
    endpoints: '`/co/authenticate`, `/co/verify`; the origin check on every CORS endpoint',
    serialiser: '`CrossOriginError` (oauth/cross-origin-login.ts) through the Authentication API surface; http/plugins/cors.ts for the origin',
    codes: 'the Authentication API\'s',
  },
  {
    family: 'Database connections',
    body: '`{name, code, description, statusCode}` (JSON; `message` and `policy` for password errors)',
    endpoints: '`/dbconnections/signup`, `/dbconnections/change_password`',
    serialiser: 'http/oauth/dbconnections.ts',
    codes: 'its own: [table](#dbconnectionssignup-and-dbconnectionschange_password-name-code-description-statuscode), http/oauth/dbconnections-errors.ts',
  },
  {
    family: 'Management API',
    body: '`{statusCode, error, message, errorCode}` (JSON)',
    endpoints: '`/api/v2/*`',
    serialiser: '`managementSurface` (http/management/surface.ts) for `ManagementError` and for `ServiceError` (services/errors.ts, by kind)',
    codes: 'its own: [table](#management-api-statuscode-error-message-errorcode), services/management-error-codes.ts',
  },
  {
    family: 'Hosted error page',
    body: 'an HTML page with the description and `Error code: <error>`',
    endpoints: '`/authorize` before the redirect URI is trusted, `/u/*` without a usable login transaction, `/v2/logout`, `/oidc/logout`, the SAML identity provider endpoints (`/samlp/*`), `/login/callback` without a login',
    serialiser: '`sendErrorPage` (http/login/pages.ts)',
    codes: 'the Authentication API\'s (mostly `invalid_request`)',
  },
  {
    family: 'Hosted page forms',
    body: 'the login, signup or reset screen again (400) with the message of the code; an advanced screen gets the code as `transaction.errors[0].code`',
    endpoints:
      '`/u/login` (`/identifier`, `/password`, the passwordless challenges), `/u/signup` (`/identifier`, `/password`), `/u/reset-password/request`, `/u/reset-password`, `/u/organization-selection`',
    serialiser: '`sendScreen` (http/login/pages.ts), messages in services/rendering/texts/',
    codes: 'its own: [table](#hosted-page-forms-transactionerrors0code), http/login/page-errors.ts',
  },
  {
    family: 'SAML',
    body: 'none of its own',
    endpoints: '`/login/callback` (Latchkey as service provider), `/samlp/*` (Latchkey as identity provider)',
    serialiser: '`SamlRefused` (oauth/saml/service-provider.ts) becomes `access_denied` at the redirect URI, or the error page for an IdP-initiated response; `SamlRequestRefused` (oauth/saml/identity-provider.ts) becomes the error page with `invalid_request`',
    codes: 'the Authentication API\'s',
  },
  {
    family: 'Upstream identity providers',
    body: 'none of its own',
    endpoints: '`/login/callback` after an OpenID Connect or OAuth 2.0 provider',
    serialiser: '`UpstreamError` (oauth/upstream/failures.ts) becomes `access_denied` at the redirect URI; the description names the provider\'s own `error`',
    codes: 'the Authentication API\'s',
  },
  {
    family: 'Service unavailable',
    body: '503 with `Retry-After`, in the shape of the surface called; a fixed HTML page for hosted pages and browser navigations',
    endpoints: 'every endpoint that needs the database or Redis',
    serialiser: 'http/unavailable.ts',
    codes: '`temporarily_unavailable` of the Authentication API or the Management API',
  },
  {
    family: 'Browser library',
    body: '`{statusCode, error, message}` (JSON, 404)',
    endpoints: '`/js/latchkey/<version>/*` with an unknown version',
    serialiser: 'http/library.ts',
    codes: 'none',
  },
];
