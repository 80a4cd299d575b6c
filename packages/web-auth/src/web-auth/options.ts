/** The options of `new WebAuth(...)` (the reference library's names). */
export interface WebAuthOptions {
  domain: string;
  clientID: string;
  redirectUri?: string;
  scope?: string;
  audience?: string;
  responseType?: string;
  responseMode?: 'query' | 'fragment' | 'form_post' | 'web_message';
  leeway?: number;
  maxAge?: number;
  _disableDeprecationWarnings?: boolean;
  [option: string]: unknown;
}

export interface ResolvedOptions extends WebAuthOptions {
  scope: string;
  leeway: number;
}

export const DEFAULT_SCOPE = 'openid profile email';
const RESPONSE_TYPES = new Set(['code', 'token', 'id_token']);
const RESPONSE_MODES = new Set(['query', 'fragment', 'form_post', 'web_message']);

const invalid = (message: string): never => {
  throw new Error(message);
};

export function checkResponseType(value: unknown, name = 'responseType') {
  if (value === undefined) return;
  if (typeof value !== 'string' || value.trim() === '' || !value.split(' ').filter(Boolean).every((part) => RESPONSE_TYPES.has(part))) {
    invalid(`${name} option is not valid: a space-separated list of code, token and id_token`);
  }
}

/** Checks the constructor's options as the reference library does: a wrong one throws at once. */
export function resolveOptions(options: WebAuthOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object') invalid('options parameter is not valid');
  if (typeof options.domain !== 'string' || options.domain === '') invalid('domain option is required');
  if (typeof options.clientID !== 'string' || options.clientID === '') invalid('clientID option is required');
  if (options.redirectUri !== undefined && typeof options.redirectUri !== 'string') invalid('redirectUri option is not valid');
  if (options.scope !== undefined && typeof options.scope !== 'string') invalid('scope option is not valid');
  if (options.audience !== undefined && typeof options.audience !== 'string') invalid('audience option is not valid');
  checkResponseType(options.responseType);
  if (options.responseMode !== undefined && !RESPONSE_MODES.has(options.responseMode)) invalid('responseMode is not valid');
  if (options.leeway !== undefined && (!Number.isInteger(options.leeway) || options.leeway < 0 || options.leeway > 300)) invalid('leeway is not valid');
  if (options.maxAge !== undefined && (!Number.isInteger(options.maxAge) || options.maxAge < 0)) invalid('maxAge is not valid');
  if (options._disableDeprecationWarnings !== undefined && typeof options._disableDeprecationWarnings !== 'boolean') {
    invalid('_disableDeprecationWarnings option is not valid');
  }
  return { ...options, scope: options.scope ?? DEFAULT_SCOPE, leeway: options.leeway ?? 60 };
}

/** The spec's default: `code` when a redirect URI is known, else `token`. */
export function defaultResponseType(redirectUri: unknown): string {
  return typeof redirectUri === 'string' && redirectUri !== '' ? 'code' : 'token';
}


/**
 * An authorize-like request: the instance's defaults (client, redirect URI, scope, audience, response mode,
 * max age), then the call's options; the response type defaults as the spec says.
 */
export function requestWithDefaults(base: ResolvedOptions, options: Record<string, unknown>): Record<string, unknown> & { responseType: string } {
  const { clientID, redirectUri, scope, audience, responseType, responseMode, maxAge } = base;
  const merged: Record<string, unknown> = { clientID, redirectUri, scope, audience, responseMode, maxAge, ...options };
  merged.responseType ??= responseType ?? defaultResponseType(merged.redirectUri);
  merged.scope ??= DEFAULT_SCOPE;
  return merged as Record<string, unknown> & { responseType: string };
}

/**
 * What a magic link needs before one is sent (spec, `passwordlessStart`): it answers at the redirect URI with
 * tokens, so `redirectUri` and `responseType` (`token` or `token id_token`) must be given, on the instance or in
 * the call's `authParams`; the defaults do not count. Answers the problem, if any.
 */
export function linkOptionsProblem(base: WebAuthOptions, authParams: Record<string, unknown>): string | undefined {
  const redirectUri = authParams.redirectUri ?? base.redirectUri;
  const responseType = authParams.responseType ?? base.responseType;
  if (typeof redirectUri !== 'string' || redirectUri === '') return 'redirectUri option is required to send a link';
  if (typeof responseType !== 'string' || responseType.trim() === '') return 'responseType option is required to send a link';
  const parts = new Set(responseType.split(' ').filter(Boolean));
  if (!parts.has('token') || [...parts].some((part) => part !== 'token' && part !== 'id_token')) {
    return 'responseType option must be token or token id_token to send a link';
  }
  return undefined;
}
