import { randomId } from '../crypto/random.js';
import type { CachedClient, OAuthConfig } from '../services/config-cache.js';
import type { Storage } from '../storage/storage.js';
import type { AuthorizeRequest } from './authorize/request.js';

/** What the user is asked to consent to: the scopes of one API (the tenant's `/userinfo` for OpenID scopes only). */
export interface ConsentNeed {
  audience: string;
  scopes: string[];
}

/** A scope as the consent screen lists it (`screen.data.scopes`): its name and the API's description of it. */
export interface ScopeShown {
  value: string;
  description: string;
}

export interface ConsentDeps {
  storage: Storage;
  tenantId: string;
  config: OAuthConfig;
  issuer: string;
  now: () => Date;
}

type ConsentRequest = Pick<AuthorizeRequest, 'audience' | 'scopes' | 'prompt' | 'redirectUri'>;

/**
 * A redirect URI proves which application asks only when its host is one the application's owner controls:
 * `localhost` can be served by anything on the user's machine, so an application there is not known to be the
 * first-party one it claims to be (the platform shows consent there whatever the API allows). Pages Latchkey
 * serves itself (the demo at `/demo/`) are on its own origin, which nothing else can answer for.
 */
export function verifiableRedirect(redirectUri: string, ownOrigin: string): boolean {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return false;
  }
  if (url.origin === ownOrigin) return true;
  const host = url.hostname.toLowerCase();
  return host !== 'localhost' && !host.endsWith('.localhost');
}

/**
 * Consent, as the platform asks for it: a third-party application (`is_first_party: false`) needs the user's consent
 * to what it requests; a first-party one only for an API that does not let verifiable first-party applications skip
 * it, or when its redirect URI is not verifiable. `prompt=consent` asks in any case. Consent is remembered per user,
 * application and API (`/api/v2/grants`), and a request within what was granted is not asked again.
 */
export function consents(deps: ConsentDeps) {
  const { storage, tenantId } = deps;
  const userinfoAudience = new URL('userinfo', deps.issuer.endsWith('/') ? deps.issuer : `${deps.issuer}/`).href;
  const audienceOf = (request: Pick<AuthorizeRequest, 'audience'>) => request.audience ?? userinfoAudience;
  const ownOrigin = new URL(deps.issuer).origin;

  async function applies(request: ConsentRequest, client: CachedClient): Promise<boolean> {
    if (request.prompt.includes('consent') || client.data.is_first_party === false) return true;
    if (request.audience === undefined) return false;
    const api = await deps.config.resourceServer(request.audience);
    if (!api) return false;
    return api.skip_consent_for_verifiable_first_party_clients === false || !verifiableRedirect(request.redirectUri, ownOrigin);
  }

  return {
    /** What the user must consent to before this request is answered; undefined when nothing. */
    async needed(request: ConsentRequest, client: CachedClient, userId: string): Promise<ConsentNeed | undefined> {
      if (!(await applies(request, client))) return undefined;
      const audience = audienceOf(request);
      const scopes = [...new Set(request.scopes)];
      if (!request.prompt.includes('consent')) {
        const granted = await storage.consents.find(tenantId, userId, client.clientId, audience);
        if (granted && scopes.every((scope) => granted.scope.includes(scope))) return undefined;
      }
      return { audience, scopes };
    },

    /** Remembers the user's consent (added to what they granted the application for that API before). */
    async grant(userId: string, clientId: string, need: ConsentNeed): Promise<void> {
      await storage.consents.grant(tenantId, { id: `cgr_${randomId(16)}`, userId, clientId, audience: need.audience, scope: need.scopes }, deps.now().toISOString());
    },

    /** The scopes as the consent screen lists them, described by the API where it describes them. */
    async shown(need: ConsentNeed): Promise<ScopeShown[]> {
      const api = need.audience === userinfoAudience ? undefined : await deps.config.resourceServer(need.audience);
      const described = new Map((api?.scopes ?? []).map((scope) => [scope.value, scope.description ?? '']));
      return need.scopes.map((value) => ({ value, description: described.get(value) ?? '' }));
    },
  };
}

export type Consents = ReturnType<typeof consents>;
