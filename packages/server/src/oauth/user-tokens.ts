import { MFA_ACR } from './mfa/requirement.js';
import { randomId } from '../crypto/random.js';
import type { SigningKeys } from '../keys/signing-keys.js';
import type { ClientData } from '../services/clients.js';
import { chainPolicyOf, refreshTokenSettingsOf } from '../services/refresh-token-settings.js';
import type { Storage } from '../storage/storage.js';
import type { OAuthConfig } from '../services/config-cache.js';
import { UnauthorizedClient } from './errors.js';
import { GRANT_ID_CLAIM } from './grant-revocations.js';
import { halfHash, signHs256Jwt, signRs256Jwt } from './jws.js';
import type { OpaqueTokenCodec } from './opaque-access-token.js';
import { refreshTokenStore, type RedeemedRefreshToken, type RefreshTokenData, type TokenOrganization } from './refresh-tokens.js';
import { CURRENT_USER_SCOPES } from '../services/management-scopes.js';
import { grantedCurrentUserScopes, grantedUserScopes, withinPermissions } from './scopes.js';
import { userinfoClaims } from './userinfo.js';
import { addCustomClaims, changedScopes, type TokenChanges } from './action-claims.js';

/** Lifetime of an access token that only reaches `/userinfo`. */
const USERINFO_TOKEN_SECONDS = 86_400;
const CURRENT_USER_SCOPE_SET: ReadonlySet<string> = new Set(CURRENT_USER_SCOPES);

/** Who a user grant is for and what it was asked for; shared by every user grant and by `/authorize`. */
export interface UserGrant {
  clientId: string;
  client: ClientData;
  userId: string;
  /** Requested scopes (the grant narrows them). */
  scopes: readonly string[];
  /** What a refresh token issued now keeps (default: `scopes`); a narrowed refresh does not narrow the grant. */
  refreshScopes?: readonly string[];
  audience: string | undefined;
  nonce?: string | undefined;
  authTime: number;
  sid?: string | undefined;
  /** The organization the user logged in to: its tokens carry `org_id`, and its member roles give the permissions. */
  organization?: TokenOrganization | undefined;
  /** The family a code and its refresh tokens share; replay of either revokes it. */
  grantId: string;
  /** Bound access tokens (mTLS). */
  certificateThumbprint?: string | undefined;
  /** The client secret presented at the token endpoint: the key of HS256 ID tokens (it is stored only hashed). */
  idTokenSecret?: string | undefined;
  /** A refresh grant: the chain of the presented token, rotated (or ended) instead of starting a new one. */
  refreshChain?: Pick<RedeemedRefreshToken, 'rotate' | 'end'> | undefined;
  /** The user as a grant that checked them has just read them; spares the ID token a second read. */
  user?: UserProfile | undefined;
  /** Custom claims and scopes from the sign-in's post-login Actions. */
  actionChanges?: TokenChanges | undefined;
  /** How the user authenticated; the ID token shows it (`amr`) once a second factor is among it. */
  amr?: readonly string[] | undefined;
}

/** A user's stored profile as ID tokens and `/userinfo` read it. */
export type UserProfile = NonNullable<Awaited<ReturnType<ReturnType<typeof userTokens>['loadUser']>>>;

export interface IssueOptions {
  accessToken: boolean;
  idToken: boolean;
  /** Ask for a refresh token; one is issued only when the scope, the client and the API allow it. */
  refreshToken: boolean;
  /** Front-channel hashes for the ID token. */
  code?: string;
}

export interface IssuedTokens {
  access_token?: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  id_token?: string;
  refresh_token?: string;
}

export interface UserTokensDeps {
  storage: Storage;
  config: OAuthConfig;
  tenantId: string;
  keys: SigningKeys;
  issuer: string;
  issuerClaim: string;
  /** The Management API's identifier: user tokens for it carry only granted `current_user` scopes. */
  managementAudience: string;
  /**
   * The admin console's client when it is served: its users' tokens for the Management API carry the Management
   * API permissions they hold through roles. No other client's user token ever carries more than `current_user`.
   */
  consoleClientId: string | undefined;
  handleKey: Buffer;
  /** Seals the access tokens that only reach `/userinfo` (no API asked for). */
  opaqueTokens: OpaqueTokenCodec;
  now: () => Date;
}

/** Issues the access, ID and refresh tokens of a user grant (authorization code, implicit, refresh, password). */
export function userTokens(deps: UserTokensDeps) {
  const userinfoAudience = `${deps.issuer}/userinfo`;

  const refreshTokens = refreshTokenStore(deps);

  async function loadUser(userId: string) {
    const record = await deps.storage.users.get(deps.tenantId, userId);
    // The record was parsed for this call alone: the column is added to it rather than the profile copied.
    return record && Object.assign(record.data, { updated_at: record.columns.updated_at });
  }

  /** `org_id`, and `org_name` when the tenant lets the Authentication API show organization names. */
  async function organizationClaimsOf(organization: TokenOrganization): Promise<{ org_id: string; org_name?: string }> {
    const settings = (await deps.config.tenantDocument())?.settings as { allow_organization_name_in_authentication_api?: boolean } | undefined;
    return settings?.allow_organization_name_in_authentication_api === true ? { org_id: organization.id, org_name: organization.name } : { org_id: organization.id };
  }

  /**
   * A user's scopes for the Management API, and the most they may ever be (`ceiling`), which an Action's addScope
   * cannot pass either: the console's sign-ins hold their role permissions, every other token `current_user` scopes
   * at most. Read at every issue (a refresh too), so that an administrator whose role is taken away loses it at once.
   */
  async function managementScopes(grant: UserGrant): Promise<{ scopes: string[]; ceiling: ReadonlySet<string> }> {
    if (deps.consoleClientId !== undefined && grant.clientId === deps.consoleClientId && !grant.organization) {
      const held = new Set(await deps.storage.roles.permissionNamesOfUser(deps.tenantId, grant.userId, deps.managementAudience));
      return { scopes: withinPermissions(grant.scopes, held), ceiling: held };
    }
    const scopes = grantedCurrentUserScopes(grant.scopes, (await deps.config.clientGrant(grant.clientId, deps.managementAudience))?.scope);
    return { scopes, ceiling: CURRENT_USER_SCOPE_SET };
  }

  return {
    loadUser,
    refreshTokens,

    async issue(grant: UserGrant, options: IssueOptions): Promise<IssuedTokens> {
      const api = grant.audience !== undefined ? await deps.config.resourceServer(grant.audience) : undefined;
      const management = grant.audience === deps.managementAudience ? await managementScopes(grant) : undefined;
      let scopes = management ? management.scopes : grantedUserScopes(grant.scopes, api);
      // RBAC: read at every issue (a refresh too), so that a permission taken away is gone from the next token.
      let permissions: string[] | undefined;
      const dialect = api?.token_dialect ?? 'access_token';
      if (api?.enforce_policies === true && grant.audience !== deps.managementAudience) {
        // In an organization, what the member holds there through their roles in it.
        const held = grant.organization
          ? await deps.storage.organizations.memberPermissionNames(deps.tenantId, grant.organization.id, grant.userId, api.identifier)
          : await deps.storage.roles.permissionNamesOfUser(deps.tenantId, grant.userId, api.identifier);
        scopes = withinPermissions(scopes, new Set(held));
        if (dialect.endsWith('_authz')) permissions = held;
      }
      // An action's addScope / removeScope apply past the API's policies, as on the platform.
      if (grant.actionChanges) scopes = changedScopes(scopes, grant.actionChanges);
      // Except on the Management API: no Action makes a user's token an administrator's.
      if (management && grant.actionChanges) scopes = withinPermissions(scopes, management.ceiling);
      const iat = Math.floor(deps.now().getTime() / 1000);
      const organizationClaims = grant.organization ? await organizationClaimsOf(grant.organization) : undefined;
      const expiresIn = api?.token_lifetime ?? USERINFO_TOKEN_SECONDS;
      const result: IssuedTokens = { token_type: 'Bearer', expires_in: expiresIn, scope: scopes.join(' ') };

      const idToken = options.idToken && scopes.includes('openid');
      const hs256 = grant.client.jwt_configuration.alg === 'HS256';
      if (idToken && hs256 && !grant.idTokenSecret) {
        throw new UnauthorizedClient('This application signs ID tokens with HS256: authenticate with its client secret (client_secret_post or client_secret_basic) to get one.');
      }
      const offline =
        options.refreshToken &&
        (grant.refreshScopes ?? scopes).includes('offline_access') &&
        grant.client.grant_types.includes('refresh_token') &&
        (api === undefined || api.allow_offline_access);
      // Settled before anything is signed: a refresh that lost the race for its token fails here, at no cost.
      let refreshToken: string | undefined;
      if (offline && grant.refreshChain) refreshToken = await grant.refreshChain.rotate();
      else if (offline) {
        const data: RefreshTokenData = {
          client_id: grant.clientId,
          user_id: grant.userId,
          scopes: [...(grant.refreshScopes ?? grant.scopes)],
          audience: grant.audience ?? null,
          auth_time: grant.authTime,
          sid: grant.sid ?? null,
          ...(grant.organization ? { organization: grant.organization } : {}),
          // A refresh keeps the second factor of the sign-in (its ID tokens show it as the first did).
          ...(grant.amr?.includes('mfa') ? { amr: [...grant.amr] } : {}),
        };
        refreshToken = await refreshTokens.create(data, grant.grantId, chainPolicyOf(refreshTokenSettingsOf(grant.client)));
      } else if (grant.refreshChain) await grant.refreshChain.end();

      if (options.accessToken) {
        const audience = api ? (scopes.includes('openid') ? [api.identifier, userinfoAudience] : api.identifier) : userinfoAudience;
        const claims = {
          iss: deps.issuerClaim,
          sub: grant.userId,
          aud: audience,
          iat,
          exp: iat + expiresIn,
          scope: result.scope,
          azp: grant.clientId,
          jti: randomId(24),
          // Our endpoints refuse the token once its grant is revoked (a replayed code or refresh token).
          [GRANT_ID_CLAIM]: grant.grantId,
          ...(grant.certificateThumbprint ? { cnf: { 'x5t#S256': grant.certificateThumbprint } } : {}),
          ...(permissions ? { permissions } : {}),
          ...organizationClaims,
          // RFC 9068 names the client in `client_id` and types the token `at+jwt`.
          ...(api && dialect.startsWith('rfc9068') ? { client_id: grant.clientId } : {}),
        };
        if (grant.actionChanges?.accessToken) addCustomClaims(claims as Record<string, unknown>, grant.actionChanges.accessToken);
        // An API verifies its tokens itself and needs a JWT; a token for /userinfo only is read by us alone.
        result.access_token = api ? await signRs256Jwt(deps.keys, claims, dialect.startsWith('rfc9068') ? 'at+jwt' : 'JWT') : deps.opaqueTokens.seal(claims);
      }

      if (idToken) {
        const user = grant.user ?? (await loadUser(grant.userId));
        // Assigned one by one onto the profile claims: a literal that starts with a spread defines every later
        // field on a slow path, which cost about 10 µs per refresh under load (bench/).
        const claims = (user ? userinfoClaims(grant.userId, user, scopes) : {}) as Record<string, unknown>;
        claims.iss = deps.issuerClaim;
        claims.sub = grant.userId;
        claims.aud = grant.clientId;
        claims.azp = grant.clientId;
        claims.iat = iat;
        claims.exp = iat + grant.client.jwt_configuration.lifetime_in_seconds;
        claims.auth_time = grant.authTime;
        if (grant.sid) claims.sid = grant.sid;
        if (grant.nonce) claims.nonce = grant.nonce;
        if (organizationClaims) Object.assign(claims, organizationClaims);
        // A second factor shows in amr, and acr names the multi-factor policy it satisfies (OpenID PAPE), as the
        // platform's tokens do.
        if (grant.amr?.includes('mfa')) {
          claims.amr = [...grant.amr];
          claims.acr = MFA_ACR;
        }
        if (grant.actionChanges?.idToken) addCustomClaims(claims, grant.actionChanges.idToken);
        if (result.access_token) claims.at_hash = halfHash(result.access_token);
        if (options.code) claims.c_hash = halfHash(options.code);
        result.id_token = hs256 ? signHs256Jwt(grant.idTokenSecret ?? '', claims) : await signRs256Jwt(deps.keys, claims);
      }

      if (refreshToken !== undefined) result.refresh_token = refreshToken;
      return result;
    },

    /** The token endpoint's answer to a user grant: always an access token, an ID token for `openid`. */
    async tokenResponse(grant: UserGrant, refreshToken = true): Promise<IssuedTokens & { access_token: string }> {
      const issued = await this.issue(grant, { accessToken: true, idToken: true, refreshToken });
      if (issued.access_token === undefined) throw new Error('an access token was asked for');
      return { ...issued, access_token: issued.access_token };
    },
  };
}

export type UserTokens = ReturnType<typeof userTokens>;
