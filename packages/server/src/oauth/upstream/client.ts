import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { UpstreamSettings } from '../../services/connection-options/upstream.js';

/** A failed step with the upstream provider; its message goes to the application as `access_denied`. */
export class UpstreamError extends Error {}

export interface ProviderEndpoints {
  issuer?: string;
  authorizationEndpoint: string;
  tokenEndpoint?: string;
  jwksUri?: string;
  userinfoEndpoint?: string;
}

/** How long a provider's discovery document is kept; a failed read is not kept. */
const DISCOVERY_TTL_MS = 10 * 60 * 1000;
const TIMEOUT_MS = 10_000;
/** Clock skew allowed on the upstream ID token's times. */
const CLOCK_TOLERANCE_SECONDS = 60;

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
 * The relying-party side of a login with an upstream provider (OpenID Connect Core 3.1, RFC 6749, RFC 7636):
 * endpoints from discovery or the connection, the code exchange with the client secret and the PKCE verifier,
 * the ID token checked against the provider's own keys (issuer, audience, nonce, times), and the profile.
 */
export function upstreamClient(deps: { now: () => Date }) {
  const discovered = new Map<string, { at: number; endpoints: Promise<ProviderEndpoints> }>();
  const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

  async function discover(url: string): Promise<ProviderEndpoints> {
    let response: Response;
    try {
      response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw new UpstreamError(`The identity provider's discovery document could not be read: ${(error as Error).message}`);
    }
    if (!response.ok) throw new UpstreamError(`The identity provider's discovery document answered HTTP ${response.status}.`);
    const body = await readJson(response, 'discovery document');
    const authorizationEndpoint = str(body.authorization_endpoint);
    if (!authorizationEndpoint || !str(body.issuer)) throw new UpstreamError('The discovery document names no issuer or authorization_endpoint.');
    return {
      issuer: str(body.issuer),
      authorizationEndpoint,
      tokenEndpoint: str(body.token_endpoint),
      jwksUri: str(body.jwks_uri),
      userinfoEndpoint: str(body.userinfo_endpoint),
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

  return {
    endpoints,

    authorizationUrl(
      settings: UpstreamSettings,
      at: ProviderEndpoints,
      input: { redirectUri: string; state: string; nonce: string; codeChallenge: string; loginHint?: string | undefined; forceLogin: boolean },
    ): string {
      const url = new URL(at.authorizationEndpoint);
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
      for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
      return url.toString();
    },

    /** The authorization code for tokens, authenticating with the client secret (client_secret_post). */
    async exchange(settings: UpstreamSettings, at: ProviderEndpoints, input: { code: string; redirectUri: string; codeVerifier: string }): Promise<{ idToken?: string; accessToken?: string }> {
      if (!at.tokenEndpoint) throw new UpstreamError('The connection has no token endpoint.');
      const form = new URLSearchParams({
        grant_type: 'authorization_code',
        code: input.code,
        redirect_uri: input.redirectUri,
        code_verifier: input.codeVerifier,
        client_id: settings.clientId ?? '',
        client_secret: settings.clientSecret ?? '',
      });
      let response: Response;
      try {
        response = await fetch(at.tokenEndpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: form,
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (error) {
        throw new UpstreamError(`The identity provider's token endpoint could not be reached: ${(error as Error).message}`);
      }
      const body = await readJson(response, 'token endpoint');
      if (!response.ok) throw new UpstreamError(`The identity provider refused the code: ${str(body.error) ?? `HTTP ${response.status}`}${str(body.error_description) ? ` (${String(body.error_description)})` : ''}.`);
      const result: { idToken?: string; accessToken?: string } = {};
      const idToken = str(body.id_token);
      const accessToken = str(body.access_token);
      if (idToken) result.idToken = idToken;
      if (accessToken) result.accessToken = accessToken;
      return result;
    },

    /** The upstream ID token, checked with the provider's published keys only (never a key the token names). */
    async verifyIdToken(settings: UpstreamSettings, at: ProviderEndpoints, idToken: string, nonce: string): Promise<JWTPayload> {
      if (!at.jwksUri || !at.issuer) throw new UpstreamError('The connection has no issuer or jwks_uri to check ID tokens with.');
      let keys = keySets.get(at.jwksUri);
      if (!keys) {
        keys = createRemoteJWKSet(new URL(at.jwksUri), { timeoutDuration: TIMEOUT_MS });
        keySets.set(at.jwksUri, keys);
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(idToken, keys, {
          issuer: at.issuer,
          audience: settings.clientId ?? '',
          algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          currentDate: deps.now(),
        }));
      } catch (error) {
        throw new UpstreamError(`The identity provider's ID token is not valid: ${(error as Error).message}`);
      }
      if (payload.nonce !== nonce) throw new UpstreamError("The identity provider's ID token does not carry this login's nonce.");
      if (typeof payload.sub !== 'string' || payload.sub === '') throw new UpstreamError("The identity provider's ID token has no subject.");
      if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== settings.clientId) {
        throw new UpstreamError("The identity provider's ID token was issued to another party (azp).");
      }
      return payload;
    },

    /** The user's profile from the provider's userinfo (OpenID Connect) or profile URL (OAuth 2.0). */
    async profile(at: ProviderEndpoints, accessToken: string): Promise<Record<string, unknown>> {
      if (!at.userinfoEndpoint) throw new UpstreamError('The connection has no profile URL.');
      let response: Response;
      try {
        response = await fetch(at.userinfoEndpoint, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
      } catch (error) {
        throw new UpstreamError(`The identity provider's profile could not be read: ${(error as Error).message}`);
      }
      if (!response.ok) throw new UpstreamError(`The identity provider's profile answered HTTP ${response.status}.`);
      return readJson(response, 'profile');
    },
  };
}

export type UpstreamClient = ReturnType<typeof upstreamClient>;
