import type { Logger } from 'pino';
import type { Storage } from '../../storage/storage.js';
import { isStorageUnavailable } from '../../storage/unavailable.js';
import { LOG_EVENT_TYPES, type LogEvent, type NewLogEvent } from './event.js';
import { strategyType, type EventNames } from './names.js';
import { cleanEvent } from './sanitize.js';

/**
 * The tenant log's writer. `record` is synchronous, never throws and never waits for the database: the event goes
 * onto a bounded in-memory buffer, and one background writer stores the buffer in batches (every `intervalMs`, or
 * at once when a batch is full), each in one transaction that also assigns the events' ids. A request therefore
 * neither slows down nor fails because of its event, and a database hiccup costs events nothing while it lasts
 * less than the buffer takes to fill: a failed batch stays at the head of the buffer and is tried again with
 * backoff, so the order of events is kept.
 *
 * What a crash loses: the events still in the buffer, normally those of the last `intervalMs` (~200 ms), more while
 * the database is failing. That is accepted because the log is the record of outcomes, not the outcomes themselves
 * (the session, tokens and users a request wrote are committed before it answers, events or not), and the only
 * way to lose nothing would be a database write inside every login, which puts the log's table on the path of
 * every sign-in: its latency in every answer, its outage an outage of sign-ins. A graceful shutdown (SIGTERM,
 * `close`) writes the buffer before the database closes.
 *
 * A full buffer refuses the NEWEST event rather than evicting the oldest, and counts it (`stats().dropped`): what is
 * buffered keeps its order with no gap inside it (a gap only ever follows the last stored event), refusing costs
 * nothing, and the events that start an incident, which explain it, are the ones kept. Each episode of drops is
 * logged once.
 */
export interface EventRecorder {
  /** Buffers an event; adds its date (now), the hostname and a default description. Never throws or waits. */
  record(event: NewLogEvent): void;
  /** Records at most one event per `key` in `windowMs` (a flood of refusals logs one `api_limit` a minute). */
  recordOncePer(key: string, windowMs: number, event: NewLogEvent): void;
  /** Resolves when every event recorded before the call is stored (or given up as unstorable). */
  flush(): Promise<void>;
  /** For metrics: events waiting, refused by a full buffer (or unstorable), stored, and the last write error. */
  stats(): RecorderStats;
  /** Stops taking events and writes what is buffered, for at most `timeoutMs`; what is left then is logged as lost. */
  close(timeoutMs?: number): Promise<void>;
}

export interface RecorderStats {
  buffered: number;
  dropped: number;
  written: number;
  lastError: string | undefined;
}

export interface EventRecorderDeps {
  storage: Pick<Storage, 'transaction'>;
  tenantId: string;
  /** The issuer's host name (every event's `hostname`). */
  hostname: string;
  /** LATCHKEY_LOG_RETENTION_DAYS: an event is swept this long after its date. */
  retentionDays: number;
  names: EventNames;
  now: () => Date;
  log: Pick<Logger, 'warn' | 'error'>;
  /** Events buffered at most (default 10,000). */
  capacity?: number;
  /** Events per write (default 500). */
  batchSize?: number;
  /** How long an event waits for more to share its write (default 200 ms). */
  intervalMs?: number;
  /** The longest wait between attempts of a failing write (default 10 s). */
  maxBackoffMs?: number;
}

export const DEFAULT_CAPACITY = 10_000;
export const DEFAULT_BATCH = 500;
export const DEFAULT_INTERVAL_MS = 200;
const FIRST_BACKOFF_MS = 100;
/** A batch failing this often for a reason other than an outage is written event by event, to find the one that fails. */
const ATTEMPTS_BEFORE_ISOLATING = 3;
/** An event refused this often on its own (not by an outage) is dropped, so that it cannot stop the log for good. */
const ATTEMPTS_ALONE = 3;
const DAY_MS = 86_400_000;
/** Keys `recordOncePer` remembers at most; past this, the ones whose window is over are forgotten. */
const ONCE_KEYS = 1000;

type Draft = Omit<LogEvent, 'log_id'>;

export function eventRecorder(deps: EventRecorderDeps): EventRecorder {
  const capacity = deps.capacity ?? DEFAULT_CAPACITY;
  const batchSize = deps.batchSize ?? DEFAULT_BATCH;
  const intervalMs = deps.intervalMs ?? DEFAULT_INTERVAL_MS;
  const maxBackoffMs = deps.maxBackoffMs ?? 10_000;
  const retentionMs = deps.retentionDays * DAY_MS;

  const queue: Draft[] = [];
  /** Events taken ever, and of those the ones stored or given up: `flush` waits for the second to reach the first. */
  let accepted = 0;
  let settled = 0;
  let written = 0;
  let dropped = 0;
  let dropping = false;
  let lastError: string | undefined;
  /** Consecutive failed writes (the backoff grows with them), and of those the ones that were not an outage. */
  let failures = 0;
  let refusals = 0;
  /** Refusals of the event at the head of the buffer written alone. */
  let strikes = 0;
  let backoffUntil = 0;
  let timer: NodeJS.Timeout | undefined;
  let timerDue = 0;
  let writing = false;
  let closed = false;
  let stopped = false;
  const waiters: { upTo: number; resolve: () => void }[] = [];
  const lastOnce = new Map<string, number>();

  function refuse() {
    dropped += 1;
    if (dropping) return;
    dropping = true;
    deps.log.warn({ buffered: queue.length, capacity }, closed ? 'log event recorded after shutdown began; not stored' : 'log event buffer full; new events are dropped until it drains');
  }

  function record(event: NewLogEvent): void {
    try {
      if (closed || queue.length >= capacity) return refuse();
      const clean = cleanEvent(event);
      clean.date = deps.now().toISOString();
      clean.hostname = deps.hostname;
      clean.description ??= LOG_EVENT_TYPES[event.type].description;
      queue.push(clean as Draft);
      accepted += 1;
      schedule(queue.length >= batchSize ? 0 : intervalMs);
    } catch {
      // Recording must never fail the request that recorded; a malformed event is counted and forgotten.
      dropped += 1;
    }
  }

  /** Wakes the writer after `delayMs` (never sooner than a failing write's backoff allows) unless it is due sooner. */
  function schedule(delayMs: number) {
    if (writing || stopped) return;
    const due = Math.max(Date.now() + delayMs, backoffUntil);
    if (timer !== undefined) {
      if (timerDue <= due) return;
      clearTimeout(timer);
    }
    timerDue = due;
    timer = setTimeout(() => void writeNext(), due - Date.now());
    timer.unref();
  }

  function settle(count: number) {
    queue.splice(0, count);
    settled += count;
    for (let i = waiters.length - 1; i >= 0; i -= 1) {
      const waiter = waiters[i];
      if (waiter && waiter.upTo <= settled) {
        waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  /** Fills in names from the ids (off the request's path); a value found once stays on the event across retries. */
  async function addNames(batch: Draft[]) {
    const users = new Map<string, Promise<string | undefined>>();
    const clients = new Map<string, Promise<string | undefined>>();
    for (const event of batch) {
      if (event.client_id !== undefined && event.client_name === undefined) {
        let name = clients.get(event.client_id);
        if (!name) clients.set(event.client_id, (name = deps.names.clientName(event.client_id)));
        event.client_name = (await name) ?? '';
      }
      if (event.connection !== undefined && event.strategy === undefined) {
        const connection = await deps.names.connection(event.connection);
        if (connection) event.connection_id = connection.id;
        event.strategy = connection?.strategy ?? '';
        event.strategy_type = strategyType(event.strategy);
      }
      if (event.user_id !== undefined && event.user_name === undefined) {
        let name = users.get(event.user_id);
        if (!name) users.set(event.user_id, (name = deps.names.userName(event.user_id)));
        const found = await name;
        if (found !== undefined) event.user_name = found;
      }
    }
  }

  async function store(batch: Draft[]) {
    await addNames(batch);
    const rows = batch.map((event) => ({ event, expiresAt: new Date(Date.parse(event.date) + retentionMs).toISOString() }));
    await deps.storage.transaction((repos) => repos.logEvents.insertBatch(deps.tenantId, rows));
  }

  /**
   * A batch that keeps failing while the database is up may hold an event the database refuses: the events are
   * written one at a time, in order, and one refused alone `ATTEMPTS_ALONE` times (with backoff in between) is
   * dropped, counted and logged, so that one bad event cannot stop the log. An outage drops nothing.
   */
  async function isolate(batch: Draft[]) {
    for (const event of batch) {
      try {
        await store([event]);
        written += 1;
      } catch (error) {
        strikes += 1;
        if (isStorageUnavailable(error) || strikes < ATTEMPTS_ALONE) throw error;
        dropped += 1;
        deps.log.error({ err: error, type: event.type }, 'a log event could not be stored and was dropped');
      }
      strikes = 0;
      settle(1);
    }
  }

  async function writeNext() {
    timer = undefined;
    if (queue.length === 0 || writing) return;
    writing = true;
    const batch = queue.slice(0, batchSize);
    try {
      if (refusals >= ATTEMPTS_BEFORE_ISOLATING) await isolate(batch);
      else {
        await store(batch);
        written += batch.length;
        settle(batch.length);
      }
      failures = 0;
      refusals = 0;
      backoffUntil = 0;
      if (queue.length < capacity) dropping = false;
    } catch (error) {
      failures += 1;
      if (!isStorageUnavailable(error)) refusals += 1;
      lastError = error instanceof Error ? error.message : String(error);
      backoffUntil = Date.now() + Math.min(maxBackoffMs, FIRST_BACKOFF_MS * 2 ** Math.min(failures, 20));
      if (failures === 1) deps.log.warn({ err: error, buffered: queue.length }, 'storing log events failed; retrying with backoff');
    } finally {
      writing = false;
      if (queue.length > 0) schedule(waiters.length > 0 || queue.length >= batchSize ? 0 : intervalMs);
    }
  }

  function flush(): Promise<void> {
    const upTo = accepted;
    if (settled >= upTo) return Promise.resolve();
    return new Promise((resolve) => {
      waiters.push({ upTo, resolve });
      schedule(0);
    });
  }

  return {
    record,
    recordOncePer(key, windowMs, event) {
      const nowMs = Date.now();
      const last = lastOnce.get(key);
      if (last !== undefined && nowMs - last < windowMs) return;
      if (lastOnce.size >= ONCE_KEYS) for (const [known, at] of lastOnce) if (nowMs - at >= windowMs) lastOnce.delete(known);
      if (lastOnce.size < ONCE_KEYS) lastOnce.set(key, nowMs);
      record(event);
    },
    flush,
    stats: () => ({ buffered: queue.length, dropped, written, lastError }),
    async close(timeoutMs = 5000) {
      closed = true;
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([flush(), new Promise<void>((resolve) => (timeout = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timeout);
      stopped = true;
      clearTimeout(timer);
      if (queue.length > 0) deps.log.error({ lost: queue.length, lastError }, 'log events could not be stored before shutdown and are lost');
    },
  };
}

/**
 * The recorder of a deployment that keeps no tenant log (LATCHKEY_TENANT_LOG=off): it takes every event and keeps
 * none, so the callers that record stay as they are and the log's metrics read zero. It also lets `npm run bench`
 * measure what recording costs, against the same server with it off.
 */
export function disabledEventRecorder(): EventRecorder {
  return {
    record() {},
    recordOncePer() {},
    flush: () => Promise.resolve(),
    stats: () => ({ buffered: 0, dropped: 0, written: 0, lastError: undefined }),
    close: () => Promise.resolve(),
  };
}
