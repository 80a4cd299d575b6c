import { CACHE_COMMAND_OPS, type ApiCommand } from './handlers.js';

export { CACHE_COMMAND_OPS };

/**
 * `api.cache` of the Actions (every trigger has it): what the platform documents, and the host's store of it.
 *
 * The platform's limits ("Actions Cache Limits"): a value is a string; at most 20 entries, keys of at most 64 bytes,
 * values of at most 4 KB and 8 KB for the keys and values together; a lifetime of 15 minutes unless `ttl` (ms) or
 * `expires_at` (ms since the epoch) say otherwise (the earlier of the two when both are given), and never more than
 * 24 hours. `get` answers `{ value, expires_at }` or undefined; `set` answers `{ type: 'success', record }` or
 * `{ type: 'error', code }`; `delete` answers `{ type: 'success' }`. The platform documents no error codes, so the
 * codes below are ours, one per rule.
 *
 * How an execution uses it: the host hands the action's live entries to `execute` (`options.cache`, from
 * `ActionCacheStore.entries`); the sandbox answers `api.cache` calls synchronously from its own copy and records
 * each change as a command (`cache.set` with args [key, value, expires_at], `cache.delete` with args [key]) among
 * the execution's commands, in call order; the host gives the commands to `ActionCacheStore.apply`, which checks
 * them again (they come out of the sandbox) and hands back the other commands.
 *
 * The store is in this process's memory: per node, not shared between the nodes of a cluster, and lost on restart.
 * The platform documents its cache as best effort ("items may not be available in later transactions even if they
 * are within their lifetime"), which this keeps: an entry may be missing on another node or after a restart, and two
 * concurrent executions of an action each start from the entries they were given (the later write of a key wins).
 * Keyed by action id, as the platform scopes an action's cache to it (its wording: "scoped to the Trigger in which
 * they are set"; an action serves one trigger).
 */

export interface ActionCacheRecord {
  value: string;
  /** Milliseconds since the epoch. */
  expires_at: number;
}

/** An action's entries by key: what `execute`'s `cache` option takes. */
export type ActionCacheEntries = Record<string, ActionCacheRecord>;

export const ACTION_CACHE_LIMITS = {
  maxEntries: 20,
  maxKeyBytes: 64,
  maxValueBytes: 4 * 1024,
  maxTotalBytes: 8 * 1024,
  defaultTtlMs: 15 * 60 * 1000,
  maxTtlMs: 24 * 60 * 60 * 1000,
} as const;

export type ActionCacheErrorCode =
  | 'INVALID_KEY'
  | 'KEY_TOO_LARGE'
  | 'INVALID_VALUE'
  | 'VALUE_TOO_LARGE'
  | 'INVALID_OPTIONS'
  | 'TOO_MANY_ENTRIES'
  | 'CACHE_FULL';


const byteLength = (text: string) => Buffer.byteLength(text, 'utf8');
const entryBytes = (key: string, value: string) => byteLength(key) + byteLength(value);

/**
 * Whether `key` may hold `value` until `expiresAt` among `entries` (the same rules the sandbox applies to the
 * tenant's calls); null when it may.
 */
export function cacheWriteError(entries: ActionCacheEntries, key: unknown, value: unknown, expiresAt: unknown, now: number): ActionCacheErrorCode | null {
  if (typeof key !== 'string' || key.length === 0) return 'INVALID_KEY';
  if (byteLength(key) > ACTION_CACHE_LIMITS.maxKeyBytes) return 'KEY_TOO_LARGE';
  if (typeof value !== 'string') return 'INVALID_VALUE';
  if (byteLength(value) > ACTION_CACHE_LIMITS.maxValueBytes) return 'VALUE_TOO_LARGE';
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt) || expiresAt <= now || expiresAt > now + ACTION_CACHE_LIMITS.maxTtlMs) {
    return 'INVALID_OPTIONS';
  }
  const others = Object.keys(entries).filter((other) => other !== key);
  if (others.length >= ACTION_CACHE_LIMITS.maxEntries) return 'TOO_MANY_ENTRIES';
  const total = others.reduce((sum, other) => sum + entryBytes(other, entries[other]?.value ?? ''), entryBytes(key, value));
  if (total > ACTION_CACHE_LIMITS.maxTotalBytes) return 'CACHE_FULL';
  return null;
}

export interface ActionCacheStoreOptions {
  /** Actions whose entries are kept; the least recently used beyond this are dropped (default 10,000). */
  maxActions?: number;
  /** The clock, in milliseconds since the epoch (tests). */
  now?: () => number;
}

/** The host's `api.cache` entries: per action id, with their expiry, bounded (see the header: per node). */
export class ActionCacheStore {
  /** Least recently used first (a Map keeps insertion order; a use re-inserts). */
  private readonly actions = new Map<string, Map<string, ActionCacheRecord>>();
  private readonly maxActions: number;
  private readonly now: () => number;

  constructor(options: ActionCacheStoreOptions = {}) {
    this.maxActions = options.maxActions ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** The action's entries that have not expired, as a plain object for `execute`'s `cache` option. */
  entries(actionId: string): ActionCacheEntries {
    const entries = this.live(actionId);
    const result: ActionCacheEntries = {};
    if (entries) for (const [key, record] of entries) result[key] = { ...record };
    return result;
  }

  /**
   * Stores the `cache.set` / `cache.delete` commands of an execution of the action, in order, each checked against
   * the limits (one that breaks them is skipped: only a sandbox whose prelude was subverted records one); resolves
   * to the execution's other commands, for the trigger to apply.
   */
  apply(actionId: string, commands: readonly ApiCommand[]): ApiCommand[] {
    const rest: ApiCommand[] = [];
    for (const command of commands) {
      if (command.op === 'cache.set') this.set(actionId, command.args[0], command.args[1], command.args[2]);
      else if (command.op === 'cache.delete') this.remove(actionId, command.args[0]);
      else rest.push(command);
    }
    return rest;
  }

  /** Forgets the action's entries (the action was deleted). */
  forget(actionId: string): void {
    this.actions.delete(actionId);
  }

  private set(actionId: string, key: unknown, value: unknown, expiresAt: unknown) {
    const entries = this.live(actionId) ?? new Map<string, ActionCacheRecord>();
    if (cacheWriteError(Object.fromEntries(entries), key, value, expiresAt, this.now()) !== null) return;
    entries.set(key as string, { value: value as string, expires_at: expiresAt as number });
    this.actions.delete(actionId);
    this.actions.set(actionId, entries);
    for (const oldest of this.actions.keys()) {
      if (this.actions.size <= this.maxActions) break;
      this.actions.delete(oldest);
    }
  }

  private remove(actionId: string, key: unknown) {
    if (typeof key !== 'string') return;
    const entries = this.live(actionId);
    entries?.delete(key);
    if (entries?.size === 0) this.actions.delete(actionId);
  }

  /** The action's entries with the expired ones dropped; undefined when it has none. */
  private live(actionId: string): Map<string, ActionCacheRecord> | undefined {
    const entries = this.actions.get(actionId);
    if (!entries) return undefined;
    const now = this.now();
    for (const [key, record] of entries) if (record.expires_at <= now) entries.delete(key);
    if (entries.size === 0) {
      this.actions.delete(actionId);
      return undefined;
    }
    this.actions.delete(actionId);
    this.actions.set(actionId, entries);
    return entries;
  }
}
