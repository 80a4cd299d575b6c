import {
  allowInsecureRequests,
  authorizationCodeGrant,
  buildAuthorizationUrl,
  ClientSecretPost,
  clockSkew,
  clockTolerance,
  Configuration,
  customFetch,
  discovery,
  enableNonRepudiationChecks,
  fetchProtectedResource,
  getJwksCache,
  implicitAuthentication,
  None,
  setJwksCache,
  useIdTokenResponseType,
  type ClientMetadata,
  type CustomFetch,
  type ExportedJWKSCache,
  type IDToken,
  type ServerMetadata,
} from 'openid-client';
import type { UpstreamSettings } from '../../services/connection-options/upstream.js';
import { UpstreamError, upstreamFailure, upstreamFetch } from './failures.js';

export { UpstreamError } from './failures.js';

export interface ProviderEndpoints {
  issuer?: string;
  authorizationEndpoint: string;
  tokenEndpoint?: string;
  jwksUri?: string;
  userinfoEndpoint?: string;
}

/** How long a provider's discovery document is kept; a failed read is not kept. */
const DISCOVERY_TTL_MS = 10 * 60 * 1000;
/** Each request to the provider (openid-client counts in seconds). */
const TIMEOUT_SECONDS = 10;
/** Clock skew allowed on the upstream ID token's times. */
const CLOCK_TOLERANCE_SECONDS = 60;
/** The ID token signatures accepted, whatever a discovery document lists. */
const ID_TOKEN_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
/** discovery() builds a Configuration for some client; only the server metadata is kept, shared by connections. */
const DISCOVERY_CLIENT_ID = 'latchkey-discovery';

async function readJson(response: Response, what: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UpstreamError(`The identity provider's ${what} did not answer JSON (HTTP ${response.status}).`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new UpstreamError(`The identity provider's ${what} did not answer a JSON object.`);
  return body as Record<string, unknown>;
}

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * An oauth2 connection reads the user from its profile URL, never from an ID token; openid-client would check one
 * (a provider adds it when the scope has `openid`) against an issuer such a connection does not have. The token
 * answer is passed on without it.
 */
const withoutIdToken: CustomFetch = async (url, options) => {
  const response = await upstreamFetch(url, options);
  if (response.status !== 200) return response;
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    return response;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !('id_token' in body)) return response;
  const rest: Record<string, unknown> = { ...body };
  delete rest.id_token;
  return new Response(JSON.stringify(rest), { status: 200, headers: { 'content-type': 'application/json' } });
};

/** The checked ID token, with a subject that names someone. */
function withSubject(claims: IDToken): IDToken {
  if (claims.sub === '') throw new UpstreamError("The identity provider's ID token has no subject.");
  return claims;
}

/**
 * The relying-party side of a login with an upstream provider (OpenID Connect Core 3.1, RFC 6749, RFC 7636), done
 * by openid-client: endpoints from discovery or the connection, the code exchange with the client secret
 * (client_secret_post) and the PKCE verifier, the ID token checked against the provider's own keys (issuer,
 * audience, nonce, times, signature), and the profile. Its failures become UpstreamError (failures.ts).
 */
export function upstreamClient(deps: { now: () => Date }) {
  const discovered = new Map<string, { at: number; endpoints: Promise<ProviderEndpoints> }>();
  /** Each provider's published keys, by jwks_uri, carried from one login's Configuration to the next. */
  const keySets = new Map<string, ExportedJWKSCache>();

  async function discover(url: string): Promise<ProviderEndpoints> {
    let metadata: ServerMetadata;
    try {
      // A URL with /.well-known/ is read as it is, with no check of the issuer it names (as before the library).
      const found = await discovery(new URL(url), DISCOVERY_CLIENT_ID, undefined, undefined, {
        [customFetch]: upstreamFetch,
        timeout: TIMEOUT_SECONDS,
        execute: [allowInsecureRequests],
      });
      metadata = found.serverMetadata();
    } catch (error) {
      throw upstreamFailure(error, 'discovery document');
    }
    const authorizationEndpoint = str(metadata.authorization_endpoint);
    if (!authorizationEndpoint || !str(metadata.issuer)) throw new UpstreamError('The discovery document names no issuer or authorization_endpoint.');
    return {
      issuer: str(metadata.issuer),
      authorizationEndpoint,
      tokenEndpoint: str(metadata.token_endpoint),
      jwksUri: str(metadata.jwks_uri),
      userinfoEndpoint: str(metadata.userinfo_endpoint),
    };
  }

  /** The connection's endpoints: its explicit ones over what discovery says. */
  async function endpoints(settings: UpstreamSettings): Promise<ProviderEndpoints> {
    let found: ProviderEndpoints | undefined;
    if (settings.discoveryUrl) {
      const cached = discovered.get(settings.discoveryUrl);
      if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) {
        found = await cached.endpoints;
      } else {
        const pending = discover(settings.discoveryUrl);
        discovered.set(settings.discoveryUrl, { at: Date.now(), endpoints: pending });
        found = await pending.catch((error: unknown) => {
          discovered.delete(settings.discoveryUrl ?? '');
          throw error;
        });
      }
    }
    const merged = {
      issuer: settings.issuer ?? found?.issuer,
      authorizationEndpoint: settings.authorizationEndpoint ?? found?.authorizationEndpoint,
      tokenEndpoint: settings.tokenEndpoint ?? found?.tokenEndpoint,
      jwksUri: settings.jwksUri ?? found?.jwksUri,
      userinfoEndpoint: settings.userinfoEndpoint ?? found?.userinfoEndpoint,
    };
    if (!merged.authorizationEndpoint) throw new UpstreamError('The connection has no authorization endpoint.');
    return merged as ProviderEndpoints;
  }

  /**
   * openid-client's view of the connection for one step, built afresh (it is cheap) so that it has the clock
   * and the connection as they are now; the provider's keys come from the steps before.
   */
  function configuration(settings: UpstreamSettings, at: ProviderEndpoints, fetcher: CustomFetch = upstreamFetch): Configuration {
    if (settings.clientId === undefined) throw new UpstreamError('The connection has no client_id.');
    const server: ServerMetadata = {
      // A plain OAuth 2.0 provider has no issuer; the library needs one, and no ID token of it is read.
      issuer: at.issuer ?? at.authorizationEndpoint,
      authorization_endpoint: at.authorizationEndpoint,
      token_endpoint: at.tokenEndpoint,
      jwks_uri: at.jwksUri,
      userinfo_endpoint: at.userinfoEndpoint,
      id_token_signing_alg_values_supported: ID_TOKEN_ALGORITHMS,
    };
    const client: Partial<ClientMetadata> = {
      // The library's clock is the system's; ours may be set apart (tests).
      [clockSkew]: Math.round((deps.now().getTime() - Date.now()) / 1000),
      [clockTolerance]: CLOCK_TOLERANCE_SECONDS,
    };
    const config = new Configuration(server, settings.clientId, client, settings.clientSecret === undefined ? None() : ClientSecretPost(settings.clientSecret));
    config.timeout = TIMEOUT_SECONDS;
    config[customFetch] = fetcher;
    // Whether a provider may be on http: is decided when the connection is read (upstreamSettings), not here.
    allowInsecureRequests(config);
    const keys = at.jwksUri === undefined ? undefined : keySets.get(at.jwksUri);
    if (keys) setJwksCache(config, keys);
    return config;
  }

  /** Keeps the keys a step read for the next login with this provider. */
  function keepKeys(config: Configuration, at: ProviderEndpoints) {
    const keys = getJwksCache(config);
    if (keys && at.jwksUri !== undefined) keySets.set(at.jwksUri, keys);
  }

  function requireKeys(at: ProviderEndpoints) {
    if (!at.jwksUri || !at.issuer) throw new UpstreamError('The connection has no issuer or jwks_uri to check ID tokens with.');
  }

  return {
    endpoints,

    authorizationUrl(
      settings: UpstreamSettings,
      at: ProviderEndpoints,
      input: { redirectUri: string; state: string; nonce: string; codeChallenge: string; loginHint?: string | undefined; forceLogin: boolean },
    ): string {
      const frontChannel = settings.type === 'front_channel';
      const params: Record<string, string | undefined> = {
        client_id: settings.clientId,
        redirect_uri: input.redirectUri,
        response_type: frontChannel ? 'id_token' : 'code',
        response_mode: frontChannel ? 'form_post' : undefined,
        scope: settings.scope || undefined,
        state: input.state,
        nonce: settings.kind === 'oidc' ? input.nonce : undefined,
        code_challenge: frontChannel ? undefined : input.codeChallenge,
        code_challenge_method: frontChannel ? undefined : 'S256',
        login_hint: input.loginHint,
        // The application asked for a fresh login: the provider's own session must not answer for it.
        prompt: input.forceLogin ? 'login' : undefined,
      };
      const defined = Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined);
      return buildAuthorizationUrl(configuration(settings, at), new URLSearchParams(defined)).href;
    },

    /**
     * The authorization code for tokens. For OpenID Connect the ID token must come with them, checked with the
     * provider's published keys and this login's nonce; its claims are answered.
     */
    async exchange(
      settings: UpstreamSettings,
      at: ProviderEndpoints,
      input: { code: string; redirectUri: string; codeVerifier: string; nonce: string },
    ): Promise<{ accessToken: string; idTokenClaims?: IDToken }> {
      if (!at.tokenEndpoint) throw new UpstreamError('The connection has no token endpoint.');
      const oidc = settings.kind === 'oidc';
      if (oidc) requireKeys(at);
      const config = configuration(settings, at, oidc ? upstreamFetch : withoutIdToken);
      // The ID token is checked against the provider's keys even though it came over TLS from the token endpoint.
      if (oidc) enableNonRepudiationChecks(config);
      // Only the code matters here: the state was the login transaction's, checked by the callback.
      const answer = new URL(input.redirectUri);
      answer.searchParams.set('code', input.code);
      try {
        const tokens = await authorizationCodeGrant(config, answer, { pkceCodeVerifier: input.codeVerifier, ...(oidc ? { expectedNonce: input.nonce } : {}) });
        const claims = oidc ? tokens.claims() : undefined;
        return claims ? { accessToken: tokens.access_token, idTokenClaims: withSubject(claims) } : { accessToken: tokens.access_token };
      } catch (error) {
        throw upstreamFailure(error, 'token endpoint', at.jwksUri);
      } finally {
        keepKeys(config, at);
      }
    },

    /** An ID token sent by the front channel, checked with the provider's published keys only (never a key the token names). */
    async verifyIdToken(settings: UpstreamSettings, at: ProviderEndpoints, idToken: string, nonce: string): Promise<IDToken> {
      requireKeys(at);
      const config = configuration(settings, at);
      useIdTokenResponseType(config);
      // The library reads a front-channel answer from a URL fragment; only the fragment matters.
      const answer = new URL('https://front-channel.invalid/');
      answer.hash = new URLSearchParams({ id_token: idToken }).toString();
      try {
        return withSubject(await implicitAuthentication(config, answer, nonce));
      } catch (error) {
        throw upstreamFailure(error, 'ID token', at.jwksUri);
      } finally {
        keepKeys(config, at);
      }
    },

    /** The user's profile from the provider's userinfo (OpenID Connect) or profile URL (OAuth 2.0). */
    async profile(settings: UpstreamSettings, at: ProviderEndpoints, accessToken: string): Promise<Record<string, unknown>> {
      if (!at.userinfoEndpoint) throw new UpstreamError('The connection has no profile URL.');
      const config = configuration(settings, at);
      try {
        // Read as a plain protected resource, not with fetchUserInfo: that refuses an answer without `sub` (any
        // JSON API of an OAuth 2.0 provider) or with another `sub`, which login.ts leaves unused instead.
        const response = await fetchProtectedResource(config, accessToken, new URL(at.userinfoEndpoint), 'GET', undefined, new Headers({ accept: 'application/json' }));
        if (!response.ok) throw new UpstreamError(`The identity provider's profile answered HTTP ${response.status}.`);
        return await readJson(response, 'profile');
      } catch (error) {
        throw upstreamFailure(error, 'profile');
      }
    },
  };
}

export type UpstreamClient = ReturnType<typeof upstreamClient>;
