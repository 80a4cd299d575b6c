import type { ConnectionData } from '../../storage/records.js';

/** A profile field of Latchkey's users and the upstream claim it is read from. */
export type ClaimMapping = Partial<Record<'user_id' | 'email' | 'email_verified' | 'name' | 'nickname' | 'picture' | 'given_name' | 'family_name', string>>;

/** An upstream identity provider, as one shape for both strategies. */
export interface UpstreamSettings {
  kind: 'oidc' | 'oauth2';
  /** `back_channel`: authorization code with PKCE and the client secret; `front_channel`: an ID token by form post. */
  type: 'back_channel' | 'front_channel';
  discoveryUrl?: string;
  issuer?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  jwksUri?: string;
  userinfoEndpoint?: string;
  clientId?: string;
  clientSecret?: string;
  scope: string;
  mapping: ClaimMapping;
}

/** The OpenID Connect claims Latchkey's profile fields come from, unless the connection maps them otherwise. */
export const OIDC_MAPPING: Required<ClaimMapping> = {
  user_id: 'sub',
  email: 'email',
  email_verified: 'email_verified',
  name: 'name',
  nickname: 'nickname',
  picture: 'picture',
  given_name: 'given_name',
  family_name: 'family_name',
};

const MAPPED_FIELDS = new Set(Object.keys(OIDC_MAPPING));
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

export const isUpstream = (connection: Pick<ConnectionData, 'strategy'>) => connection.strategy === 'oidc' || connection.strategy === 'oauth2';

function httpsUrl(name: string, value: string | undefined, problems: string[], allowHttp: boolean) {
  if (value === undefined) return;
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) problems.push(`options.${name} must be an https URL`);
  } catch {
    problems.push(`options.${name} must be a URL`);
  }
}

/**
 * Reads an upstream connection's options (the platform's names: `discovery_url`, `client_id`, `client_secret`,
 * `scope`, `type`; for `oauth2`: `authorizationURL`, `tokenURL`, `profileURL` and a `mapping`). Answers the
 * problems found, so that a bad configuration is refused when it is saved, not at the first login.
 * `http:` URLs are accepted outside production (a provider on the developer's machine).
 */
export function upstreamSettings(connection: Pick<ConnectionData, 'strategy' | 'options'>, allowHttp: boolean): { settings?: UpstreamSettings; problems: string[] } {
  const options = connection.options;
  const problems: string[] = [];
  const kind = connection.strategy === 'oauth2' ? 'oauth2' : 'oidc';
  const type = options.type === undefined ? 'back_channel' : options.type;
  if (type !== 'back_channel' && type !== 'front_channel') problems.push('options.type must be back_channel or front_channel');
  if (kind === 'oauth2' && type === 'front_channel') problems.push('an oauth2 connection has no ID token: options.type must be back_channel');
  const mapping = (options.mapping ?? {}) as Record<string, unknown>;
  if (typeof mapping !== 'object' || mapping === null || Array.isArray(mapping)) problems.push('options.mapping must be an object');
  for (const [field, claim] of Object.entries(mapping)) {
    if (!MAPPED_FIELDS.has(field)) problems.push(`options.mapping.${field} is not a profile field (${[...MAPPED_FIELDS].join(', ')})`);
    else if (typeof claim !== 'string' || claim === '') problems.push(`options.mapping.${field} must name a claim`);
  }
  const settings: UpstreamSettings = {
    kind,
    type: type === 'front_channel' ? 'front_channel' : 'back_channel',
    scope: text(options.scope) ?? (kind === 'oidc' ? 'openid profile email' : ''),
    mapping: mapping as ClaimMapping,
  };
  const assign = <K extends keyof UpstreamSettings>(key: K, value: UpstreamSettings[K] | undefined) => {
    if (value !== undefined) settings[key] = value;
  };
  assign('clientId', text(options.client_id));
  assign('clientSecret', text(options.client_secret));
  if (kind === 'oidc') {
    assign('discoveryUrl', text(options.discovery_url));
    assign('issuer', text(options.issuer));
    assign('authorizationEndpoint', text(options.authorization_endpoint));
    assign('tokenEndpoint', text(options.token_endpoint));
    assign('jwksUri', text(options.jwks_uri));
    assign('userinfoEndpoint', text(options.userinfo_endpoint));
    const explicit = settings.issuer !== undefined && settings.authorizationEndpoint !== undefined && settings.jwksUri !== undefined;
    if (!settings.discoveryUrl && !explicit) problems.push('an oidc connection needs options.discovery_url, or options.issuer, authorization_endpoint and jwks_uri');
    if (!settings.discoveryUrl && settings.type === 'back_channel' && settings.tokenEndpoint === undefined) problems.push('a back_channel oidc connection needs options.token_endpoint (or discovery_url)');
    if (!settings.scope.split(' ').includes('openid')) problems.push('options.scope of an oidc connection must include openid');
  } else {
    assign('authorizationEndpoint', text(options.authorizationURL));
    assign('tokenEndpoint', text(options.tokenURL));
    assign('userinfoEndpoint', text(options.profileURL));
    if (!settings.authorizationEndpoint || !settings.tokenEndpoint || !settings.userinfoEndpoint) {
      problems.push('an oauth2 connection needs options.authorizationURL, tokenURL and profileURL');
    }
    if (settings.mapping.user_id === undefined) settings.mapping = { user_id: 'id', ...settings.mapping };
  }
  httpsUrl('discovery_url', settings.discoveryUrl, problems, allowHttp);
  for (const [name, value] of [
    [kind === 'oidc' ? 'authorization_endpoint' : 'authorizationURL', settings.authorizationEndpoint],
    [kind === 'oidc' ? 'token_endpoint' : 'tokenURL', settings.tokenEndpoint],
    ['jwks_uri', settings.jwksUri],
    [kind === 'oidc' ? 'userinfo_endpoint' : 'profileURL', settings.userinfoEndpoint],
  ] as const) {
    httpsUrl(name, value, problems, allowHttp);
  }
  return problems.length > 0 ? { problems } : { settings, problems };
}

/**
 * Without credentials of its own a connection counts as using development keys (the spec): it cannot sign
 * anyone in silently, so `prompt=none` answers `login_required`.
 */
export function usesDevelopmentKeys(settings: UpstreamSettings): boolean {
  return settings.clientId === undefined || (settings.type === 'back_channel' && settings.clientSecret === undefined);
}
