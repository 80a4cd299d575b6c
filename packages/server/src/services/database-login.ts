import type { Storage } from '../storage/storage.js';
import type { AttackProtectionSettings } from './attack-protection-settings.js';
import type { BreachedPasswords } from './breached-passwords.js';
import { keyedSerial } from './keyed-serial.js';
import type { LoginProtection } from './login-protection.js';
import type { ConnectionData } from './connections.js';
import { LOG_EVENT_TYPES, type LogEventType, type NewLogEvent } from './events/event.js';
import type { EventRecorder } from './events/recorder.js';
import { hashPassword, isCurrentPasswordHash, verifyPassword } from './passwords.js';
import { loginAccount, withLogin, type UserData } from './users.js';

export type DatabaseLoginFailure = 'unknown_connection' | 'connection_not_enabled' | 'wrong_credentials' | 'blocked' | 'too_many_attempts' | 'ip_throttled' | 'password_leaked';

export interface LoginInput {
  connection: string;
  clientId: string;
  username: string;
  password: string;
  ip: string;
  userAgent?: string | undefined;
  /**
   * The code a refused credential or account (`fp`, `fu`, `f`) is logged as, where the platform logs the way in
   * rather than the reason: cross-origin login's is `fcoa`. The reason's own code stays in `details.failure`.
   * Throttling and breached-password refusals keep their codes (`limit_wc`, `limit_mu`, `pwd_leak`) either way.
   */
  failedAs?: LogEventType | undefined;
}

export type DatabaseLoginResult =
  | { ok: true; userId: string; connection: string; user: UserData }
  | { ok: false; reason: DatabaseLoginFailure };

export interface DatabaseLoginDeps {
  storage: Storage;
  tenantId: string;
  /** The tenant's database connections (strategy `auth0`) in creation order, as the configuration cache has them. */
  databaseConnections: () => Promise<readonly ConnectionData[]>;
  protection: LoginProtection;
  /** The tenant log: every refusal of an attempt is logged here, where it is decided (`fp`, `fu`, `limit_wc`...). */
  events: Pick<EventRecorder, 'record'>;
  breached: BreachedPasswords;
  attackProtection: AttackProtectionSettings;
  /** Breached-password detection with `user_notification`: tell the user, with a way to choose a new password. */
  notifyLeakedPassword: (user: { id: string; email: string }, clientId: string) => Promise<void>;
  now: () => Date;
}

/**
 * A hash of a password nobody has, verified when the user does not exist, so that a wrong user name costs as
 * much as a wrong password and timing does not tell which accounts exist.
 */
let decoyHash: Promise<string> | undefined;

/** The refusals of the credentials or the account (what `failedAs` renames), as opposed to the protections'. */
const CREDENTIAL_REFUSALS: ReadonlySet<LogEventType> = new Set<LogEventType>(['fp', 'fu', 'f']);

/**
 * Username/password login against a database connection (strategy `auth0`): the hosted login page, the
 * password-realm grant and cross-origin login all come through here.
 */
export function databaseLogin(deps: DatabaseLoginDeps) {
  const { storage, tenantId } = deps;
  const serially = keyedSerial();

  async function findConnection(name: string, clientId: string): Promise<ConnectionData | DatabaseLoginFailure> {
    const connection = (await deps.databaseConnections()).find((candidate) => candidate.name === name);
    if (!connection) return 'unknown_connection';
    if (!connection.enabled_clients.includes(clientId)) return 'connection_not_enabled';
    return connection;
  }

  return {
    /** The database connections enabled for a client, in creation order. */
    async connectionsFor(clientId: string): Promise<ConnectionData[]> {
      return (await deps.databaseConnections()).filter((connection) => connection.enabled_clients.includes(clientId));
    },

    findConnection,

    /**
     * `username` is an e-mail address, or a user name on connections that have them. Attempts for one account from one address run one at a time (in this process): a burst of guesses cannot
     * all pass the brute-force gate before the block lands, so wrong guesses cost at most `max_attempts`
     * argon2id verifications, not one per concurrent request.
     */
    login(input: LoginInput): Promise<DatabaseLoginResult> {
      return serially(`${input.connection}\n${input.username.trim().toLowerCase()}\n${input.ip}`, () => attempt(input));
    },
  };

  async function attempt(input: LoginInput): Promise<DatabaseLoginResult> {
    const connection = await findConnection(input.connection, input.clientId);
    if (typeof connection === 'string') return { ok: false, reason: connection };
    const name = input.username.trim();
    /** Logs the refusal (never the password) and answers it. */
    const refuse = (reason: DatabaseLoginFailure, type: LogEventType, fields: Pick<NewLogEvent, 'user_id' | 'description'> = {}): DatabaseLoginResult => {
      const origin = { ip: input.ip, ...(input.userAgent !== undefined ? { user_agent: input.userAgent } : {}) };
      const event = { client_id: input.clientId, connection: connection.name, user_name: name, ...origin, ...fields };
      if (input.failedAs !== undefined && CREDENTIAL_REFUSALS.has(type)) {
        deps.events.record({ ...event, type: input.failedAs, description: fields.description ?? LOG_EVENT_TYPES[type].description, details: { failure: type } });
      } else {
        deps.events.record({ ...event, type });
      }
      return { ok: false, reason };
    };
    const gate = await deps.protection.gate({ identifier: name, ip: input.ip });
    if (gate === 'blocked') return refuse('too_many_attempts', 'limit_wc');
    if (gate === 'ip_throttled') return refuse('ip_throttled', 'limit_mu');
    const byEmail = name.includes('@');
    const where = byEmail ? { connection: connection.name, email: name.toLowerCase() } : { connection: connection.name, username: name };
    const record = await storage.users.findOne(tenantId, where);
    if (!record?.columns.password_hash) {
      await verifyPassword(input.password, await (decoyHash ??= hashPassword(`decoy-${Math.random()}`)));
      await deps.protection.failed({ identifier: name, ip: input.ip, connection: connection.name });
      return refuse('wrong_credentials', 'fu');
    }
    if (!(await verifyPassword(input.password, record.columns.password_hash))) {
      await deps.protection.failed({ identifier: name, ip: input.ip, connection: connection.name, user: { id: record.id, email: record.data.email } });
      return refuse('wrong_credentials', 'fp', { user_id: record.id });
    }
    const account = await loginAccount(storage, tenantId, record);
    if (record.data.blocked || account.data.blocked) return refuse('blocked', 'f', { user_id: account.id, description: 'user is blocked' });
    const detection = await deps.attackProtection.get('breached-password-detection');
    if (detection.enabled && detection.shields.includes('block') && (await deps.breached.isBreached(input.password))) {
      if (detection.shields.includes('user_notification') && record.data.email) await deps.notifyLeakedPassword({ id: record.id, email: record.data.email }, input.clientId);
      return refuse('password_leaked', 'pwd_leak', { user_id: account.id });
    }
    await deps.protection.succeeded({ identifier: name, ip: input.ip });
    if (!isCurrentPasswordHash(record.columns.password_hash)) {
      // A hash kept from a bulk import (or made with other argon2 costs): the password just proved is hashed
      // again with ours, once; unless the hash changed meanwhile (a reset), which is then kept.
      const imported = record.columns.password_hash;
      const upgraded = await hashPassword(input.password);
      await storage.users.modify(tenantId, record.id, (current) =>
        current.columns.password_hash === imported ? { columns: { password_hash: upgraded } } : undefined,
      );
    }
    const at = deps.now().toISOString();
    // Counted on the stored document as it is now: a change made while the password was being checked (an
    // administrator's block or metadata) is kept, and a block still refuses this login. The record read before
    // the check is tried first; the write holds only if the document did not change since.
    const counted = await storage.users.modify(
      tenantId,
      account.id,
      (current) => (current.data.blocked ? undefined : { data: withLogin(current.data, at, input.ip) }),
      account === record ? record : undefined,
    );
    if (!counted) return refuse('wrong_credentials', 'fu', { user_id: account.id, description: 'The user was deleted during the login.' });
    if (counted.data.blocked) return refuse('blocked', 'f', { user_id: account.id, description: 'user is blocked' });
    return { ok: true, userId: account.id, connection: connection.name, user: counted.data };
  }
}

export type DatabaseLogin = ReturnType<typeof databaseLogin>;
