import type { CachedClient, OAuthConfig } from '../../services/config-cache.js';
import type { OAuthErrorCode } from '../error-codes.js';
import { AccessDenied, InvalidRequest, UnauthorizedClient, UnsupportedResponseType } from '../errors.js';
import { PKCE_VALUE } from '../pkce.js';
import { splitScope } from '../scopes.js';
import {
  normaliseResponseType,
  RESPONSE_MODES,
  RESPONSE_TYPES,
  type AuthorizeRequest,
  type RawParams,
  type ResponseMode,
} from './request.js';

/**
 * Raised before the redirect URI is trusted: the browser gets an error page, never a redirect, so that nobody
 * can use Latchkey to send users to an address the application did not register.
 */
export class UntrustedRequest extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
  }
}

/** The one value of a parameter; repeated parameters are refused (RFC 6749 3.1). */
function single(raw: RawParams, name: string): string | undefined {
  const value = raw[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new InvalidRequest(`Parameter '${name}' must be given once, as a string.`);
  return value;
}

export interface TrustedTarget {
  client: CachedClient;
  redirectUri: string;
  /** How errors travel back from here on. */
  responseMode: ResponseMode;
  state: string | undefined;
}

/**
 * Step one: the client and its redirect URI (exact match against the registered callbacks), and the response
 * mode errors will use from here on.
 */
export async function trustRedirect(raw: RawParams, config: OAuthConfig): Promise<TrustedTarget> {
  const untrusted = (read: () => string | undefined, name: string) => {
    try {
      return read();
    } catch {
      throw new UntrustedRequest('invalid_request', `Parameter '${name}' must be given once.`);
    }
  };
  const clientId = untrusted(() => single(raw, 'client_id'), 'client_id');
  if (!clientId) throw new UntrustedRequest('invalid_request', 'Missing required parameter: client_id');
  const client = await config.client(clientId);
  if (!client) throw new UntrustedRequest('invalid_request', 'Unknown client: the client_id is not registered.');
  const given = untrusted(() => single(raw, 'redirect_uri'), 'redirect_uri');
  const callbacks = client.data.callbacks;
  const redirectUri = given ?? (callbacks.length === 1 ? callbacks[0] : undefined);
  if (!redirectUri) throw new UntrustedRequest('invalid_request', 'Missing required parameter: redirect_uri');
  if (!callbacks.includes(redirectUri)) {
    throw new UntrustedRequest('invalid_request', 'The redirect_uri is not in the list of Allowed Callback URLs of the application.');
  }
  const state = typeof raw.state === 'string' ? raw.state : undefined;
  const mode = typeof raw.response_mode === 'string' && (RESPONSE_MODES as readonly string[]).includes(raw.response_mode) ? raw.response_mode : undefined;
  const responseType = typeof raw.response_type === 'string' ? normaliseResponseType(raw.response_type) : '';
  const defaultMode: ResponseMode = responseType === 'code' || responseType === '' ? 'query' : 'fragment';
  return { client, redirectUri, responseMode: (mode as ResponseMode | undefined) ?? defaultMode, state };
}

const PROMPTS = new Set(['none', 'login', 'consent', 'select_account']);

/** Step two: everything else, in the order the errors are reported. Errors go back to the redirect URI. */
export async function checkRequest(raw: RawParams, target: TrustedTarget, config: OAuthConfig): Promise<AuthorizeRequest> {
  const { client } = target;
  const rawType = single(raw, 'response_type');
  if (!rawType) throw new InvalidRequest('Missing required parameter: response_type');
  const responseType = normaliseResponseType(rawType);
  if (!RESPONSE_TYPES.includes(responseType)) throw new UnsupportedResponseType(`Unsupported response type: ${rawType}`);
  const responseTypes = responseType.split(' ');

  const mode = single(raw, 'response_mode');
  if (mode !== undefined && !(RESPONSE_MODES as readonly string[]).includes(mode)) throw new InvalidRequest(`Unsupported response_mode: ${mode}`);
  if (mode === 'query' && responseType !== 'code') {
    throw new InvalidRequest('response_mode=query cannot carry tokens: use fragment, form_post or web_message.');
  }

  const grants = client.data.grant_types;
  if (responseTypes.includes('code') && !grants.includes('authorization_code')) {
    throw new UnauthorizedClient(`Grant type 'authorization_code' not allowed for the client.`);
  }
  if (responseTypes.some((type) => type !== 'code') && !grants.includes('implicit')) {
    throw new UnauthorizedClient(`Grant type 'implicit' not allowed for the client.`);
  }

  const scopes = splitScope(single(raw, 'scope') ?? 'openid');
  const nonce = single(raw, 'nonce');
  if (responseTypes.includes('id_token')) {
    if (!scopes.includes('openid')) throw new InvalidRequest(`The 'openid' scope is required when an ID token is requested.`);
    if (!nonce) throw new InvalidRequest('Missing required parameter: nonce (required for ID tokens from the authorization endpoint).');
    // The secret is stored only hashed, so an HS256 ID token can be signed only where the client presents it.
    if (target.client.data.jwt_configuration.alg === 'HS256') {
      throw new UnauthorizedClient('This application signs ID tokens with HS256, which only the token endpoint can issue: use response_type=code.');
    }
  }

  const prompt = splitScope(single(raw, 'prompt'));
  const unknownPrompt = prompt.find((value) => !PROMPTS.has(value));
  if (unknownPrompt) throw new InvalidRequest(`Unsupported prompt: ${unknownPrompt}`);
  if (prompt.includes('none') && prompt.length > 1) throw new InvalidRequest('prompt=none cannot be combined with other values.');

  const maxAgeRaw = single(raw, 'max_age');
  if (maxAgeRaw !== undefined && !/^\d{1,10}$/.test(maxAgeRaw)) throw new InvalidRequest('max_age must be a non-negative integer (seconds).');

  const codeChallenge = single(raw, 'code_challenge');
  const method = single(raw, 'code_challenge_method');
  if (method !== undefined && method !== 'S256') throw new InvalidRequest(`Unsupported code_challenge_method: ${method} (only S256 is accepted).`);
  if (codeChallenge !== undefined) {
    if (method === undefined) throw new InvalidRequest('code_challenge_method=S256 is required with a code_challenge.');
    if (!PKCE_VALUE.test(codeChallenge)) throw new InvalidRequest('Invalid code_challenge.');
    if (!responseTypes.includes('code')) throw new InvalidRequest('code_challenge needs a response_type that includes code.');
  }

  // The tenant's default_audience stands in for an audience the request does not name, as on the platform.
  const audience = single(raw, 'audience') ?? ((await config.tenantDocument())?.settings.default_audience || undefined);
  if (audience !== undefined && !(await config.resourceServer(audience))) throw new AccessDenied(`Service not found: ${audience}`);

  const extensions: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (name.startsWith('ext-') && typeof value === 'string') extensions[name] = value;
  }
  const optional = <K extends keyof AuthorizeRequest>(key: K, value: AuthorizeRequest[K] | undefined) => (value === undefined ? {} : { [key]: value });
  return {
    clientId: client.clientId,
    redirectUri: target.redirectUri,
    responseTypes,
    responseMode: (mode as ResponseMode | undefined) ?? target.responseMode,
    scopes,
    prompt,
    extensions,
    ...optional('audience', audience),
    ...optional('state', single(raw, 'state')),
    ...optional('nonce', nonce),
    ...optional('maxAge', maxAgeRaw === undefined ? undefined : Number(maxAgeRaw)),
    ...optional('loginHint', single(raw, 'login_hint')),
    ...optional('screenHint', single(raw, 'screen_hint')),
    ...optional('uiLocales', single(raw, 'ui_locales')),
    ...optional('acrValues', single(raw, 'acr_values')),
    ...optional('connection', single(raw, 'connection')),
    ...optional('organization', single(raw, 'organization')),
    ...optional('invitation', single(raw, 'invitation')),
    ...optional('codeChallenge', codeChallenge),
    ...optional('loginTicket', single(raw, 'login_ticket')),
  };
}

