import { handleId, newHandle, safeEqual } from '../crypto/handles.js';
import { secureRandomBytes } from '../crypto/random.js';
import type { Storage } from '../storage/storage.js';
import { InvalidGrant } from './errors.js';
import { revokeGrant } from './grant-revocations.js';

/** A chain unused for this long is dead (an inactivity lifetime); each use rotates its token and starts it again. */
export const REFRESH_TOKEN_IDLE_SECONDS = 30 * 86_400;

/**
 * The row's expiry column is a horizon, not the idle expiry: it lies at least the idle lifetime ahead and is moved
 * on, this far, only by a rotation that would pass it. So most rotations rewrite the data alone and leave the
 * expiry index untouched, which halved the cost of the write (37 -> 18 µs per rotation on a table of 20,000 chains,
 * SQLite, measured alone); the idle expiry itself is kept in the data. A chain nobody uses stays dead from its idle
 * expiry, and its row expires with the horizon.
 */
const HORIZON_SECONDS = 2 * REFRESH_TOKEN_IDLE_SECONDS;

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
  idle_expires_at: string;
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
  /** Spends the presented token and returns its successor; throws `invalid_grant` if another use won the race. */
  rotate(): Promise<string>;
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
    /** Starts a chain for a grant and returns its first token. */
    async create(data: RefreshTokenData, family: string): Promise<string> {
      const chainId = secureRandomBytes(16).toString('base64url');
      const secret = newHandle();
      const now = deps.now();
      await storage.artifacts.insert<ChainData>(tenantId, KIND, {
        id: chainId,
        family,
        subject: data.user_id,
        data: { ...data, secret: hash(secret), idle_expires_at: after(now, REFRESH_TOKEN_IDLE_SECONDS) },
        createdAt: now.toISOString(),
        expiresAt: after(now, HORIZON_SECONDS),
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
      // An idle chain is refused like an expired one; nothing is revoked (its tokens are simply too old).
      if (row.data.idle_expires_at <= now) throw unknownToken();
      const family = row.family ?? row.id;
      // Not the secret in force: an earlier token of this chain, spent by a rotation and now presented again.
      if (!safeEqual(row.data.secret, hash(presented.secret))) return handleRefreshTokenReuse(family, at, row.data.user_id);
      return {
        data: withoutSecret(row.data),
        family,
        async rotate() {
          const secret = newHandle();
          const idle = after(at, REFRESH_TOKEN_IDLE_SECONDS);
          // The horizon moves only when the new idle expiry would reach it.
          const horizon = row.expiresAt > idle ? undefined : after(at, HORIZON_SECONDS);
          const next: ChainData = { ...row.data, secret: hash(secret), idle_expires_at: idle };
          const rotated = await storage.artifacts.swap(tenantId, KIND, row.id, row.data, next, now, horizon);
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
