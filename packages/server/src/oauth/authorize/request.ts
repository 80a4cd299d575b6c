/** The parameters of an authorization request as Latchkey uses them, after the checks in checks.ts. */
export interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  /** Sorted, e.g. ['code', 'id_token']. */
  responseTypes: string[];
  responseMode: ResponseMode;
  scopes: string[];
  audience?: string;
  state?: string;
  nonce?: string;
  prompt: string[];
  maxAge?: number;
  loginHint?: string;
  screenHint?: string;
  uiLocales?: string;
  /** e.g. `http://schemas.openid.net/pape/policies/2007/06/multi-factor`: the login needs a second factor. */
  acrValues?: string;
  connection?: string;
  /** The organization to log in to: as the request names it (an id or a name) until checked, then its id. */
  organization?: string;
  /** The organization's name, once `organization` is checked (tokens may carry it). */
  organizationName?: string;
  /** An organization invitation's ticket: the user joins the organization by logging in or signing up. */
  invitation?: string;
  codeChallenge?: string;
  loginTicket?: string;
  /** `ext-*` parameters, which hosted pages may show (context configuration). */
  extensions: Record<string, string>;
}

export type ResponseMode = 'query' | 'fragment' | 'form_post' | 'web_message';

export const RESPONSE_MODES: readonly ResponseMode[] = ['query', 'fragment', 'form_post', 'web_message'];

/** Every combination OIDC Core and OAuth 2.0 Multiple Response Types define, sorted. */
export const RESPONSE_TYPES: readonly string[] = ['code', 'token', 'id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token'];

export const normaliseResponseType = (value: string) => value.split(' ').filter(Boolean).sort().join(' ');

/** Raw parameters: only single string values count; a repeated parameter is an error (RFC 6749 3.1). */
export type RawParams = Readonly<Record<string, unknown>>;
