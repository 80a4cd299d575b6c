import { hmacSha256 } from '../crypto/deployment-secret.js';
import { handleId, newHandle } from '../crypto/handles.js';
import type { Storage } from '../storage/storage.js';
import type { AttackProtectionSettings, BruteForceProtection, ThrottleStage } from './attack-protection-settings.js';
import type { EventRecorder } from './events/recorder.js';
import type { Notifier } from './notifier.js';

/** Consecutive failures are forgotten a day after the last one. */
const FAILURES_SECONDS = 86_400;
/**
 * A brute-force block lasts until the user follows the e-mailed link, an administrator lifts it, or this long:
 * an attacker cannot lock an innocent user out for good.
 */
export const BLOCK_SECONDS = 86_400;

export interface UserBlock {
  identifier: string;
  ip: string;
  connection: string;
}

interface FailureCount {
  count: number;
  /** Epoch milliseconds of the last change (IP throttling regains attempts over time). */
  at: number;
}

export type LoginGate = 'blocked' | 'ip_throttled' | undefined;

export interface LoginProtectionDeps {
  storage: Storage;
  tenantId: string;
  handleKey: Buffer;
  settings: AttackProtectionSettings;
  notifier: Notifier;
  issuer: string;
  /** The tenant log: a lifted block is logged (`ublkdu`). */
  events: Pick<EventRecorder, 'record'>;
  now: () => Date;
}

/**
 * Brute-force protection (consecutive failures per account and address block that pair, with an e-mailed
 * unblock link) and suspicious-IP throttling (failures across accounts from one address throttle it), with the
 * platform's settings. Counters live in the database so every node sees them, are changed under a lock so
 * concurrent failures all count, and expire, so nothing locks anyone out for good.
 */
export function loginProtection(deps: LoginProtectionDeps) {
  const { storage, tenantId } = deps;
  const keyOf = (text: string) => hmacSha256(deps.handleKey, text).toString('base64url');
  const normal = (identifier: string) => identifier.trim().toLowerCase();

  const pairKey = (mode: BruteForceProtection['mode'], identifier: string, ip: string) =>
    keyOf(mode === 'count_per_identifier' ? `bf\n${normal(identifier)}` : `bf\n${normal(identifier)}\n${ip}`);
  const ipKey = (ip: string) => keyOf(`ip\n${ip}`);
  const live = <T>(artifact: { consumedAt: string | null; expiresAt: string; data: T } | undefined, now: string) =>
    artifact && artifact.consumedAt === null && artifact.expiresAt > now ? artifact : undefined;

  /** Attempts the address has left before throttling: one comes back every `rate` milliseconds. */
  function ipCount(stored: FailureCount | undefined, rate: number, nowMs: number): number {
    if (!stored) return 0;
    return Math.max(0, stored.count - Math.floor((nowMs - stored.at) / rate));
  }

  /**
   * Spends one attempt of an address's throttling bucket, under the bucket's lock; with `refuseWhenEmpty`, an
   * empty bucket is not spent and false returned. The row lives until every attempt has come back.
   */
  function spendAttempt(key: string, stage: ThrottleStage, refuseWhenEmpty: boolean): Promise<boolean> {
    const now = deps.now();
    const at = now.toISOString();
    return storage.exclusive(`latchkey:ip:${key}`, async (repos) => {
      const stored = live(await repos.artifacts.get<FailureCount>(tenantId, 'ip_failures', key), at);
      const used = ipCount(stored?.data, stage.rate, now.getTime());
      if (refuseWhenEmpty && used >= stage.max_attempts) return false;
      const count = used + 1;
      await repos.artifacts.replace(tenantId, 'ip_failures', { id: key, data: { count, at: now.getTime() }, createdAt: at, expiresAt: new Date(now.getTime() + count * stage.rate).toISOString() });
      return true;
    });
  }

  return {
    /** Before the password is checked: is this account blocked from this address, or the address throttled? */
    async gate(input: { identifier: string; ip: string }): Promise<LoginGate> {
      const now = deps.now();
      const at = now.toISOString();
      const bruteForce = await deps.settings.get('brute-force-protection');
      const throttling = await deps.settings.get('suspicious-ip-throttling');
      const blockKey =
        bruteForce.enabled && bruteForce.shields.includes('block') && !bruteForce.allowlist.includes(input.ip) ? pairKey(bruteForce.mode, input.identifier, input.ip) : undefined;
      const throttled = throttling.enabled && throttling.shields.includes('block') && !throttling.allowlist.includes(input.ip);
      // With both protections on (the default), both rows come in one statement.
      const [block, ipFailures] =
        blockKey !== undefined && throttled
          ? await storage.artifacts.getTwo<UserBlock, FailureCount>(tenantId, ['user_block', blockKey], ['ip_failures', ipKey(input.ip)])
          : [
              blockKey !== undefined ? await storage.artifacts.get<UserBlock>(tenantId, 'user_block', blockKey) : undefined,
              throttled ? await storage.artifacts.get<FailureCount>(tenantId, 'ip_failures', ipKey(input.ip)) : undefined,
            ];
      if (live(block, at)) return 'blocked';
      if (throttled) {
        const stage = throttling.stage['pre-login'];
        if (ipCount(live(ipFailures, at)?.data, stage.rate, now.getTime()) >= stage.max_attempts) return 'ip_throttled';
      }
      return undefined;
    },

    /** A wrong password: counts for the account and the address; the count that reaches the limit blocks. */
    async failed(input: { identifier: string; ip: string; connection: string; user?: { id: string; email?: string | undefined } | undefined }): Promise<void> {
      const now = deps.now();
      const at = now.toISOString();
      const bruteForce = await deps.settings.get('brute-force-protection');
      if (bruteForce.enabled && !bruteForce.allowlist.includes(input.ip)) {
        const key = pairKey(bruteForce.mode, input.identifier, input.ip);
        const reached = await storage.exclusive(`latchkey:bf:${key}`, async (repos) => {
          const stored = live(await repos.artifacts.get<FailureCount>(tenantId, 'login_failures', key), at);
          const count = (stored?.data.count ?? 0) + 1;
          const expiresAt = new Date(now.getTime() + FAILURES_SECONDS * 1000).toISOString();
          await repos.artifacts.replace(tenantId, 'login_failures', { id: key, data: { count, at: now.getTime() }, createdAt: at, expiresAt });
          if (count < bruteForce.max_attempts || !bruteForce.shields.includes('block')) return false;
          const block: UserBlock = { identifier: normal(input.identifier), ip: input.ip, connection: input.connection };
          await repos.artifacts.replace(tenantId, 'user_block', {
            id: key,
            family: `identifier:${block.identifier}`,
            subject: input.user?.id ?? null,
            data: block,
            createdAt: at,
            expiresAt: new Date(now.getTime() + BLOCK_SECONDS * 1000).toISOString(),
          });
          return true;
        });
        if (reached && input.user?.email && bruteForce.shields.includes('user_notification')) {
          const ticket = newHandle();
          await storage.artifacts.insert(tenantId, 'unblock_ticket', {
            id: handleId(deps.handleKey, ticket),
            subject: input.user.id,
            data: { block: key },
            createdAt: at,
            expiresAt: new Date(now.getTime() + BLOCK_SECONDS * 1000).toISOString(),
          });
          await deps.notifier.accountBlocked({ email: input.user.email, url: `${deps.issuer}/u/unblock?ticket=${ticket}`, ip: input.ip });
        }
      }
      const throttling = await deps.settings.get('suspicious-ip-throttling');
      if (throttling.enabled && !throttling.allowlist.includes(input.ip)) await spendAttempt(ipKey(input.ip), throttling.stage['pre-login'], false);
    },

    /**
     * Suspicious-IP throttling of signups (`pre-user-registration`): each signup from an address uses an attempt,
     * one coming back every `rate` milliseconds. True when the address may sign up now (and it is counted).
     */
    async signupAllowed(ip: string): Promise<boolean> {
      const throttling = await deps.settings.get('suspicious-ip-throttling');
      if (!throttling.enabled || throttling.allowlist.includes(ip)) return true;
      return spendAttempt(keyOf(`signup\n${ip}`), throttling.stage['pre-user-registration'], throttling.shields.includes('block'));
    },

    /** A successful login ends the account's run of failures from that address. */
    async succeeded(input: { identifier: string; ip: string }): Promise<void> {
      const { mode } = await deps.settings.get('brute-force-protection');
      await storage.artifacts.remove(tenantId, 'login_failures', pairKey(mode, input.identifier, input.ip));
    },

    /** The e-mailed link: lifts that one block (once). */
    async unblockWithTicket(ticket: string): Promise<boolean> {
      const spent = await storage.artifacts.consume<{ block: string }>(tenantId, 'unblock_ticket', handleId(deps.handleKey, ticket), deps.now().toISOString());
      if (!spent) return false;
      const block = await storage.artifacts.get<UserBlock>(tenantId, 'user_block', spent.data.block);
      await storage.artifacts.remove(tenantId, 'login_failures', spent.data.block);
      await storage.artifacts.remove(tenantId, 'user_block', spent.data.block);
      deps.events.record({
        type: 'ublkdu',
        ...(spent.subject !== null ? { user_id: spent.subject } : {}),
        ...(block ? { user_name: block.data.identifier, connection: block.data.connection } : {}),
        details: { by: 'unblock_link' },
      });
      return true;
    },

    /** Live blocks of a user (by user id) or of a login identifier. */
    async blocks(by: { userId?: string; identifier?: string }): Promise<UserBlock[]> {
      const where = by.userId !== undefined ? { subject: by.userId } : { family: `identifier:${normal(by.identifier ?? '')}` };
      return (await storage.artifacts.listLive<UserBlock>(tenantId, 'user_block', where, deps.now().toISOString())).map((artifact) => artifact.data);
    },

    /** Lifts every block of a user or identifier, and forgets their failures. */
    async unblock(by: { userId?: string; identifier?: string }): Promise<number> {
      const where = by.userId !== undefined ? { subject: by.userId } : { family: `identifier:${normal(by.identifier ?? '')}` };
      const found = await storage.artifacts.listLive<UserBlock>(tenantId, 'user_block', where, deps.now().toISOString());
      for (const block of found) {
        await storage.artifacts.remove(tenantId, 'user_block', block.id);
        await storage.artifacts.remove(tenantId, 'login_failures', block.id);
      }
      const first = found[0]?.data;
      if (first) {
        deps.events.record({
          type: 'ublkdu',
          ...(by.userId !== undefined ? { user_id: by.userId } : {}),
          user_name: first.identifier,
          connection: first.connection,
          details: { by: 'administrator', blocks: found.length },
        });
      }
      return found.length;
    },
  };
}

export type LoginProtection = ReturnType<typeof loginProtection>;
