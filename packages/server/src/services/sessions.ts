import { randomId } from '../crypto/random.js';
import { handleId, newHandle } from '../crypto/handles.js';
import type { Repositories } from '../storage/repositories/index.js';
import type { Storage } from '../storage/storage.js';
import type { SessionLifetimes } from './tenant-settings.js';

/** What an SSO session remembers: who logged in, when, how, and which applications it served. */
export interface SessionData {
  user_id: string;
  /** Public session id: the `sid` claim of ID tokens and logout. */
  sid: string;
  /** Seconds since the epoch of the last interactive login (`auth_time`). */
  auth_time: number;
  amr: string[];
  connection: string;
  clients: string[];
  last_seen_at: string;
  /** Where the login came from (absent in sessions stored before it was kept): the Management API shows it. */
  device?: SessionDevice;
}

/** The browser a session was started in, with the platform's names (`GET /api/v2/sessions/{id}`). */
export interface SessionDevice {
  initial_ip?: string;
  initial_user_agent?: string;
}

/** A User-Agent is the browser's to choose: a session keeps this much of it. */
const USER_AGENT_KEPT = 512;

export interface Session {
  handleId: string;
  data: SessionData;
}

export interface SessionsDeps {
  storage: Storage;
  tenantId: string;
  handleKey: Buffer;
  now: () => Date;
  /** How long sessions live, without use and at most: the tenant settings', read when a session is started or used. */
  lifetimes: () => Promise<SessionLifetimes>;
}

/** Touching a session writes; within this many seconds of the last touch a use does not write again. */
const TOUCH_INTERVAL_SECONDS = 60;

/**
 * Server-side SSO sessions: the browser holds a random handle in a cookie, the database its hash. A session
 * ends at its absolute lifetime, or earlier when it has been idle too long.
 */
export function sessionsService(deps: SessionsDeps) {
  const { storage, tenantId } = deps;
  const iso = (date: Date) => date.toISOString();

  return {
    /** The lifetimes that apply now (tenant settings); read them before a transaction that creates a session. */
    lifetimes: deps.lifetimes,

    /**
     * `repos` lets a caller create the session inside its own transaction (e.g. with the ticket it spends). Such a
     * caller passes `lifetimes` read beforehand: inside a transaction nothing may read through `storage`, which on
     * SQLite waits for the transaction's own connection for ever.
     */
    async create(
      input: { userId: string; connection: string; amr: string[]; clientId: string; origin?: { ip: string; userAgent?: string | undefined } | undefined },
      repos: Pick<Repositories, 'artifacts'> = storage,
      lifetimes?: SessionLifetimes,
    ): Promise<{ handle: string; session: Session }> {
      const { absoluteSeconds } = lifetimes ?? (await deps.lifetimes());
      const handle = newHandle();
      const now = deps.now();
      const data: SessionData = {
        user_id: input.userId,
        sid: randomId(32),
        auth_time: Math.floor(now.getTime() / 1000),
        amr: input.amr,
        connection: input.connection,
        clients: [input.clientId],
        last_seen_at: iso(now),
        ...(input.origin ? { device: deviceOf(input.origin) } : {}),
      };
      const id = handleId(deps.handleKey, handle);
      await repos.artifacts.insert(tenantId, 'session', {
        id,
        family: data.sid,
        subject: input.userId,
        data,
        createdAt: iso(now),
        expiresAt: iso(new Date(now.getTime() + absoluteSeconds * 1000)),
      });
      return { handle, session: { handleId: id, data } };
    },

    /** The live session behind a cookie value, or undefined (unknown, ended, idle too long or too old). */
    async find(handle: string | undefined, repos: Pick<Repositories, 'artifacts'> = storage): Promise<Session | undefined> {
      if (!handle) return undefined;
      const id = handleId(deps.handleKey, handle);
      const artifact = await repos.artifacts.get<SessionData>(tenantId, 'session', id);
      const now = deps.now();
      if (!artifact || artifact.consumedAt !== null || artifact.expiresAt <= iso(now)) return undefined;
      const idleFor = (now.getTime() - Date.parse(artifact.data.last_seen_at)) / 1000;
      if (idleFor > (await deps.lifetimes()).idleSeconds) return undefined;
      if (idleFor > TOUCH_INTERVAL_SECONDS) {
        artifact.data.last_seen_at = iso(now);
        await repos.artifacts.update(tenantId, 'session', id, artifact.data, iso(now));
      }
      return { handleId: id, data: artifact.data };
    },

    /** Records that the session served a client (logout and `sid` bookkeeping). */
    async addClient(session: Session, clientId: string): Promise<void> {
      if (session.data.clients.includes(clientId)) return;
      session.data.clients.push(clientId);
      await storage.artifacts.update(tenantId, 'session', session.handleId, session.data, iso(deps.now()));
    },

    /** Adds authentication methods to a live session (a second factor given later: step-up, an Action's demand). */
    async addMethods(session: Session, amr: readonly string[]): Promise<void> {
      const added = amr.filter((method) => !session.data.amr.includes(method));
      if (added.length === 0) return;
      session.data.amr = [...session.data.amr, ...added];
      await storage.artifacts.update(tenantId, 'session', session.handleId, session.data, iso(deps.now()));
    },

    /**
     * Ends the session behind a cookie value; answers what it was when there was one (logout logs whose it was). A
     * session idle too long is ended too (it is dead already), so this reads no lifetimes and may run inside a
     * transaction.
     */
    async end(handle: string | undefined, repos: Pick<Repositories, 'artifacts'> = storage): Promise<SessionData | undefined> {
      if (!handle) return undefined;
      const artifact = await repos.artifacts.get<SessionData>(tenantId, 'session', handleId(deps.handleKey, handle));
      if (!artifact || artifact.consumedAt !== null || artifact.expiresAt <= iso(deps.now())) return undefined;
      return (await repos.artifacts.revokeFamily(tenantId, artifact.data.sid, iso(deps.now()))) > 0 ? artifact.data : undefined;
    },

    /**
     * Ends a session by its public id (`sid` of an ID token hint, or an administrator's `/sessions/{id}`). Only the
     * session kind answers to it: no other family (a grant) can be ended by naming its id as a session's.
     */
    async endBySid(sid: string, repos: Pick<Repositories, 'artifacts'> = storage): Promise<boolean> {
      return (await repos.artifacts.revokeFamily(tenantId, sid, iso(deps.now()), ['session'])) > 0;
    },
  };
}

export type Sessions = ReturnType<typeof sessionsService>;

function deviceOf(origin: { ip: string; userAgent?: string | undefined }): SessionDevice {
  const userAgent = origin.userAgent?.slice(0, USER_AGENT_KEPT);
  return { initial_ip: origin.ip, ...(userAgent ? { initial_user_agent: userAgent } : {}) };
}
