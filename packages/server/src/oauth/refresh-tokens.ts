import { handleId, newHandle, safeEqual } from '../crypto/handles.js';
import { secureRandomBytes } from '../crypto/random.js';
import { chainPolicyOf, DEFAULT_REFRESH_TOKEN, type ChainPolicy } from '../services/refresh-token-settings.js';
import type { Storage } from '../storage/storage.js';
import { InvalidGrant } from './errors.js';
import { revokeGrant } from './grant-revocations.js';

/**
 * A chain unused for this long is dead (an inactivity lifetime), unless its client's settings say otherwise; each
 * use starts it again. Chains stored before clients had settings have this one.
 */
export const REFRESH_TOKEN_IDLE_SECONDS = DEFAULT_REFRESH_TOKEN.idle_token_lifetime;

/** The expiry of a row whose chain never dies: the artifact sweeper never reaches it. */
const NEVER = '9999-12-31T23:59:59.999Z';

/**
 * The row's expiry column is a horizon, not the idle expiry: it lies at least the idle lifetime ahead (twice it) and
 * is moved on only by a use that would pass it. So most rotations rewrite the data alone and leave the expiry index
 * untouched, which halved the cost of the write (37 -> 18 µs per rotation on a table of 20,000 chains, SQLite,
 * measured alone); the idle expiry itself is kept in the data. A chain nobody uses stays dead from its idle expiry,
 * and its row expires with the horizon, or with the chain's absolute end if that comes first.
 */
function horizon(now: Date, idleSeconds: number | null, endsAt: string | undefined): string {
  if (idleSeconds === null) return endsAt ?? NEVER;
  const far = new Date(now.getTime() + 2 * idleSeconds * 1000).toISOString();
  return endsAt !== undefined && endsAt < far ? endsAt : far;
}

/** What a refresh token remembers, to issue the next tokens exactly as the first ones were. */
export interface RefreshTokenData {
  client_id: string;
  user_id: string;
  scopes: string[];
  audience: string | null;
  auth_time: number;
  sid: string | null;
  /** The organization the user logged in to, if any (absent in chains stored before organizations). */
  organization?: TokenOrganization;
  /** How the user authenticated, when it took a second factor (the refreshed ID tokens carry it). */
  amr?: string[];
}

/** The organization a login was for, as its tokens carry it (`org_id`, and `org_name` where the tenant allows). */
export interface TokenOrganization {
  id: string;
  name: string;
}

/**
 * The stored row of a chain: the grant, the keyed hash of the one secret in force, and when it dies unused. The only
 * layout redeemed: migration 0004-refresh-token-chains rewrote or removed the rows of the layouts before it. The
 * Management API reads it too (user-access.ts), and shows neither the hash nor the chain id.
 */
export interface ChainData extends RefreshTokenData {
  secret: string;
  /** When the chain dies unused; null: never (its client's tokens have no idle lifetime). */
  idle_expires_at: string | null;
  /** Its idle lifetime in seconds (null: none); absent in chains stored before client settings: the default. */
  idle_seconds?: number | null;
  /** The absolute end of the chain, whatever its use; absent: none. */
  ends_at?: string;
  /** false: a non-rotating chain, whose one token is used again and again; absent: rotating. */
  rotating?: false;
  /** Seconds during which the secret just rotated away is still accepted; absent: none. */
  leeway?: number;
  /** The secret rotated away last and until when it is accepted (within the leeway, it is no reuse). */
  previous?: { secret: string; until: string };
}

export interface RefreshTokenStoreDeps {
  storage: Storage;
  tenantId: string;
  /** Key of the hashes secrets are stored under (crypto/handles.ts). */
  handleKey: Buffer;
  now: () => Date;
}

/** A presented refresh token that may be used: what it grants, and how to spend it. */
export interface RedeemedRefreshToken {
  data: RefreshTokenData;
  /** The grant the token belongs to (codes and refresh tokens of one grant share it). */
  family: string;
  /**
   * Spends the presented token and returns its successor; throws `invalid_grant` if another use won the race. A
   * non-rotating chain returns nothing: the client keeps the token it has (its idle lifetime starts again).
   */
  rotate(): Promise<string | undefined>;
  /** Spends the presented token without a successor (the grant no longer allows refresh tokens). */
  end(): Promise<void>;
}

const KIND = 'refresh_token';
const CHAIN_ID = /^[A-Za-z0-9_-]{22}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;
const UNKNOWN_TOKEN = 'Unknown or invalid refresh token.';
const unknownToken = () => new InvalidGrant(UNKNOWN_TOKEN);

/**
 * The answer to a reused refresh token: on the wire the same as an unknown one (the presenter learns nothing), but
 * its own class, so that the tenant log records reuse (`ferrt`, with the user whose grant was revoked).
 */
export class RefreshTokenReused extends InvalidGrant {
  constructor(readonly userId: string) {
    super(UNKNOWN_TOKEN);
  }
}

type Presented = { chainId: string; secret: string };

/**
 * Refresh tokens as rotating chains. A token is `<chain id>.<secret>`: the chain id names one stored row for the
 * life of a grant's refresh tokens, and that row keeps only the keyed hash of the secret in force. Each use swaps
 * in a new secret in place: one read and a one-row write, where a new row per token (and the old one marked
 * spent) cost four index updates, two commits and a row kept for every rotation until it expired (bench/).
 * A token whose chain is known but whose secret is not the one in force is an earlier token of that chain: it
 * leaked or is being replayed, so the whole grant is revoked (reuse detection: handleRefreshTokenReuse).
 */
export function refreshTokenStore(deps: RefreshTokenStoreDeps) {
  const { storage, tenantId } = deps;
  const hash = (secret: string) => handleId(deps.handleKey, secret);
  const after = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

  function parse(token: string): Presented | undefined {
    const dot = token.indexOf('.');
    // A bare token (no chain id) was of the one-row-per-token format; its rows are gone (0004-refresh-token-chains).
    if (dot === -1) return undefined;
    const chainId = token.slice(0, dot);
    const secret = token.slice(dot + 1);
    return CHAIN_ID.test(chainId) && SECRET.test(secret) ? { chainId, secret } : undefined;
  }

  // Field by field: a rest pattern copies on a slow path (it showed in the refresh profile, bench/).
  const withoutSecret = (data: ChainData): RefreshTokenData => ({
    client_id: data.client_id,
    user_id: data.user_id,
    scopes: data.scopes,
    audience: data.audience,
    auth_time: data.auth_time,
    sid: data.sid,
    ...(data.organization ? { organization: data.organization } : {}),
  });

  const store = {
    /** Starts a chain for a grant under its client's policy (kept for the chain's life) and returns its first token. */
    async create(data: RefreshTokenData, family: string, policy: ChainPolicy = chainPolicyOf(DEFAULT_REFRESH_TOKEN)): Promise<string> {
      const chainId = secureRandomBytes(16).toString('base64url');
      const secret = newHandle();
      const now = deps.now();
      const endsAt = policy.lifetimeSeconds === null ? undefined : after(now, policy.lifetimeSeconds);
      const chain: ChainData = {
        ...data,
        secret: hash(secret),
        idle_expires_at: policy.idleSeconds === null ? null : after(now, policy.idleSeconds),
        idle_seconds: policy.idleSeconds,
        ...(endsAt !== undefined ? { ends_at: endsAt } : {}),
        ...(policy.rotating ? {} : { rotating: false as const }),
        ...(policy.leeway > 0 ? { leeway: policy.leeway } : {}),
      };
      await storage.artifacts.insert<ChainData>(tenantId, KIND, {
        id: chainId,
        family,
        subject: data.user_id,
        data: chain,
        createdAt: now.toISOString(),
        expiresAt: horizon(now, policy.idleSeconds, endsAt),
      });
      return `${chainId}.${secret}`;
    },

    /**
     * Checks a presented token for `clientId` without spending it. Another client's token is refused untouched
     * (presenting it must not let anyone revoke it); an earlier token of a live chain is reuse and revokes the grant.
     */
    async redeem(clientId: string, token: string): Promise<RedeemedRefreshToken> {
      const presented = parse(token);
      if (!presented) throw unknownToken();
      const at = deps.now();
      const now = at.toISOString();
      const row = await storage.artifacts.get<ChainData>(tenantId, KIND, presented.chainId);
      if (!row || row.data.client_id !== clientId || row.consumedAt !== null || row.expiresAt <= now) throw unknownToken();
      const chain = row.data;
      // An idle or ended chain is refused like an expired one; nothing is revoked (its tokens are simply too old).
      if ((chain.idle_expires_at !== null && chain.idle_expires_at <= now) || (chain.ends_at !== undefined && chain.ends_at <= now)) throw unknownToken();
      const family = row.family ?? row.id;
      const presentedHash = hash(presented.secret);
      // Not the secret in force: an earlier token of this chain, spent by a rotation and now presented again. Within
      // the client's leeway the one rotated away last is still accepted (a client that lost the answer retries).
      const inLeeway = chain.previous !== undefined && chain.previous.until > now && safeEqual(chain.previous.secret, presentedHash);
      if (!safeEqual(chain.secret, presentedHash) && !inLeeway) return handleRefreshTokenReuse(family, at, chain.user_id);
      const idleSeconds = chain.idle_seconds === undefined ? REFRESH_TOKEN_IDLE_SECONDS : chain.idle_seconds;
      const idle = idleSeconds === null ? null : after(at, idleSeconds);
      // The horizon moves only when the new idle expiry would reach it.
      const moved = idle === null || row.expiresAt > idle ? undefined : horizon(at, idleSeconds, chain.ends_at);
      const nextHorizon = moved === row.expiresAt ? undefined : moved;
      return {
        data: withoutSecret(chain),
        family,
        async rotate() {
          if (chain.rotating === false) {
            // The same token goes on; only its idle expiry moves. A concurrent use that moved it first is no failure.
            if (idle !== null) await storage.artifacts.swap(tenantId, KIND, row.id, chain, { ...chain, idle_expires_at: idle }, now, nextHorizon);
            return undefined;
          }
          const secret = newHandle();
          const previous = inLeeway ? chain.previous : chain.leeway ? { secret: chain.secret, until: after(at, chain.leeway) } : undefined;
          const next: ChainData = { ...chain, secret: hash(secret), idle_expires_at: idle, ...(previous ? { previous } : {}) };
          const rotated = await storage.artifacts.swap(tenantId, KIND, row.id, chain, next, now, nextHorizon);
          if (!rotated) throw unknownToken();
          return `${row.id}.${secret}`;
        },
        async end() {
          if (!(await storage.artifacts.consume(tenantId, KIND, row.id, now))) throw unknownToken();
        },
      };
    },

    /** What a token grants (for revocation), whichever of its chain's tokens it is; undefined if unknown. */
    async find(token: string): Promise<{ data: RefreshTokenData; family: string } | undefined> {
      const presented = parse(token);
      if (!presented) return undefined;
      const row = await storage.artifacts.get<RefreshTokenData>(tenantId, KIND, presented.chainId);
      return row && { data: row.data, family: row.family ?? row.id };
    },
  };

  /**
   * Refresh-token reuse detection (OAuth 2.0 Security BCP 4.14.2, fosite's handleRefreshTokenReuse): a spent token
   * presented again has leaked or is being replayed, and the server cannot tell the thief from the client, as both
   * hold the same token. So the whole grant is revoked (its code and refresh tokens die, our endpoints refuse the
   * access tokens it issued) and neither can go on; the presenter hears only that the token is unknown.
   */
  async function handleRefreshTokenReuse(family: string, at: Date, userId: string): Promise<never> {
    await revokeGrant(storage, tenantId, family, at);
    throw new RefreshTokenReused(userId);
  }

  return store;
}

export type RefreshTokenStore = ReturnType<typeof refreshTokenStore>;
