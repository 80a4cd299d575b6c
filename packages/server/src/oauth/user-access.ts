import type { Artifact } from '../storage/repositories/artifacts.js';
import type { PageOf, PageWindow } from '../storage/repositories/page.js';
import type { Storage } from '../storage/storage.js';
import { ServiceError } from '../services/errors.js';
import type { SessionData, SessionDevice, Sessions } from '../services/sessions.js';
import type { SessionLifetimes } from '../services/tenant-settings.js';
import { revokeGrantsIn } from './grant-revocations.js';
import { REFRESH_TOKEN_IDLE_SECONDS, type ChainData } from './refresh-tokens.js';

/** A login session as the platform's Management API shows it (`/api/v2/sessions/{id}`); its id is the `sid` of ID tokens. */
export interface SessionView {
  id: string;
  user_id: string;
  created_at: string;
  updated_at: string;
  authenticated_at: string;
  idle_expires_at: string;
  expires_at: string;
  last_interacted_at: string;
  device: SessionDevice;
  clients: { client_id: string }[];
  authentication: { methods: { name: string }[] };
}

/** A refresh token as the platform's Management API shows it (`/api/v2/refresh-tokens/{id}`). */
export interface RefreshTokenView {
  id: string;
  user_id: string;
  created_at: string;
  /** null: its application's refresh tokens do not expire when unused. */
  idle_expires_at: string | null;
  /** The chain's absolute end, when its application's refresh tokens have one. */
  expires_at?: string;
  client_id: string;
  session_id: string | null;
  rotating: boolean;
  resource_servers: { audience: string; scopes: string }[];
  last_exchanged_at?: string;
}

/** One window of a user's sessions or refresh tokens; `end` is where the next window starts (dead rows were read too). */
export interface AccessPage<T> extends PageOf<T> {
  end: number;
}

export interface UserAccessDeps {
  storage: Storage;
  tenantId: string;
  issuer: string;
  now: () => Date;
  /** The tenant's session lifetimes: a session idle longer than they allow is over, though its row is still there. */
  sessionLifetimes: () => Promise<SessionLifetimes>;
  /** Ends a session by its id, as logout does. */
  sessions: Pick<Sessions, 'endBySid'>;
}

const notFound = (message: string, errorCode: 'inexistent_resource' | 'inexistent_user' = 'inexistent_resource') => new ServiceError('not_found', message, errorCode);

/** The platform names a federated login `federated`; the other methods keep their `amr` names. */
const methodName = (amr: string) => (amr === 'fed' ? 'federated' : amr);

/**
 * A user's access as administrators see and end it: SSO sessions (ending one ends SSO in that browser: the next
 * `prompt=none` answers login_required) and refresh tokens (revoking one revokes its grant, as `/oauth/revoke` does, so
 * the chain stops refreshing and our endpoints refuse the access tokens it issued).
 *
 * A refresh token is shown by its grant id, never by its chain id: the chain id is half of the token, and presenting it
 * with a made-up secret counts as reuse and revokes the grant, so whoever could read it could end anyone's grant.
 */
export function userAccess(deps: UserAccessDeps) {
  const { storage, tenantId } = deps;
  const userinfoAudience = `${deps.issuer}/userinfo`;
  const iso = (ms: number) => new Date(ms).toISOString();

  async function userMustExist(userId: string): Promise<void> {
    if (!(await storage.users.get(tenantId, userId))) throw notFound('The user does not exist.', 'inexistent_user');
  }

  /** The view of a live session row, or undefined when it has been idle too long (it is over, only not yet swept). */
  function sessionView(row: Artifact<SessionData>, idleSeconds: number, nowMs: number): SessionView | undefined {
    const data = row.data;
    const idleEnds = Date.parse(data.last_seen_at) + idleSeconds * 1000;
    if (idleEnds <= nowMs) return undefined;
    return {
      id: data.sid,
      user_id: data.user_id,
      created_at: row.createdAt,
      updated_at: data.last_seen_at,
      authenticated_at: iso(data.auth_time * 1000),
      idle_expires_at: iso(Math.min(idleEnds, Date.parse(row.expiresAt))),
      expires_at: row.expiresAt,
      last_interacted_at: data.last_seen_at,
      device: data.device ?? {},
      clients: data.clients.map((clientId) => ({ client_id: clientId })),
      authentication: { methods: data.amr.map((amr) => ({ name: methodName(amr) })) },
    };
  }

  /** The view of a live chain, or undefined when it has been unused too long, has reached its end, or names no grant. */
  function refreshTokenView(row: Artifact<ChainData>, now: string): RefreshTokenView | undefined {
    const data = row.data;
    const idle = data.idle_expires_at;
    if (row.family === null || (idle !== null && idle <= now) || (data.ends_at !== undefined && data.ends_at <= now)) return undefined;
    // Every exchange moves the idle expiry to a full idle lifetime after it, so the last one is read back from it.
    const idleSeconds = data.idle_seconds === undefined ? REFRESH_TOKEN_IDLE_SECONDS : data.idle_seconds;
    const exchanged = idle !== null && idleSeconds !== null ? Date.parse(idle) - idleSeconds * 1000 : undefined;
    return {
      id: row.family,
      user_id: data.user_id,
      created_at: row.createdAt,
      idle_expires_at: idle,
      ...(data.ends_at !== undefined ? { expires_at: data.ends_at } : {}),
      client_id: data.client_id,
      session_id: data.sid,
      rotating: data.rotating !== false,
      resource_servers: [{ audience: data.audience ?? userinfoAudience, scopes: data.scopes.join(' ') }],
      ...(exchanged !== undefined && exchanged > Date.parse(row.createdAt) ? { last_exchanged_at: iso(exchanged) } : {}),
    };
  }

  async function liveSession(id: string) {
    const now = deps.now();
    const [row] = await storage.artifacts.listLive<SessionData>(tenantId, 'session', { family: id }, now.toISOString());
    const view = row && sessionView(row, (await deps.sessionLifetimes()).idleSeconds, now.getTime());
    if (!row || !view) throw notFound('The session does not exist.');
    return { row, view };
  }

  /** The grants of a user's live chains (of one session, when `sid` is given). */
  async function grantsOf(userId: string, sid?: string): Promise<string[]> {
    const chains = await storage.artifacts.listLive<ChainData>(tenantId, 'refresh_token', { subject: userId }, deps.now().toISOString());
    return chains.filter((chain) => chain.family !== null && (sid === undefined || chain.data.sid === sid)).map((chain) => chain.family ?? '');
  }

  return {
    async sessionsOf(userId: string, window: PageWindow): Promise<AccessPage<SessionView>> {
      await userMustExist(userId);
      const now = deps.now();
      const [page, lifetimes] = await Promise.all([storage.artifacts.pageLive<SessionData>(tenantId, 'session', userId, now.toISOString(), window), deps.sessionLifetimes()]);
      const items = page.items.flatMap((row) => sessionView(row, lifetimes.idleSeconds, now.getTime()) ?? []);
      return { items, total: page.total, end: window.offset + page.items.length };
    },

    async session(id: string): Promise<SessionView> {
      return (await liveSession(id)).view;
    },

    /** `DELETE /sessions/{id}`: the session ends, its refresh tokens go on (they are offline access). */
    async endSession(id: string): Promise<void> {
      await deps.sessions.endBySid(id);
    },

    /** `POST /sessions/{id}/revoke`: the session ends, and so do the refresh tokens issued in it. */
    async revokeSession(id: string): Promise<void> {
      const { view } = await liveSession(id);
      const grants = await grantsOf(view.user_id, id);
      const now = deps.now();
      await storage.transaction(async (repos) => {
        await deps.sessions.endBySid(id, repos);
        await revokeGrantsIn(repos, tenantId, grants, now);
      });
    },

    async endSessionsOf(userId: string): Promise<void> {
      await userMustExist(userId);
      await storage.artifacts.revokeSubject(tenantId, userId, ['session'], deps.now().toISOString());
    },

    async refreshTokensOf(userId: string, window: PageWindow): Promise<AccessPage<RefreshTokenView>> {
      await userMustExist(userId);
      const now = deps.now().toISOString();
      const page = await storage.artifacts.pageLive<ChainData>(tenantId, 'refresh_token', userId, now, window);
      return { items: page.items.flatMap((row) => refreshTokenView(row, now) ?? []), total: page.total, end: window.offset + page.items.length };
    },

    async refreshToken(id: string): Promise<RefreshTokenView> {
      const now = deps.now().toISOString();
      const rows = await storage.artifacts.listLive<ChainData>(tenantId, 'refresh_token', { family: id }, now);
      const view = rows.map((row) => refreshTokenView(row, now)).find((found) => found !== undefined);
      if (!view) throw notFound('The refresh token does not exist.');
      return view;
    },

    /** `DELETE /refresh-tokens/{id}`: its grant is revoked (an unknown id changes nothing, as on the platform). */
    async revokeRefreshToken(id: string): Promise<void> {
      const now = deps.now();
      if ((await storage.artifacts.listLive(tenantId, 'refresh_token', { family: id }, now.toISOString())).length === 0) return;
      await storage.transaction((repos) => revokeGrantsIn(repos, tenantId, [id], now));
    },

    async revokeRefreshTokensOf(userId: string): Promise<void> {
      await userMustExist(userId);
      const grants = await grantsOf(userId);
      if (grants.length > 0) await storage.transaction((repos) => revokeGrantsIn(repos, tenantId, grants, deps.now()));
    },
  };
}

export type UserAccess = ReturnType<typeof userAccess>;
