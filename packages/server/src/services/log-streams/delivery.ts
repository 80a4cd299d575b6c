import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { randomId } from '../../crypto/random.js';
import { LOG_ID_PREFIX } from '../../storage/repositories/log-events.js';
import type { LogStreamRecord } from '../../storage/repositories/log-streams.js';
import type { Storage } from '../../storage/storage.js';
import type { LogEvent } from '../events/event.js';
import { typesOfFilters, type StoredLogStream } from './definition.js';
import { sinkPoster } from './http-post.js';
import { DEFAULT_SINK_ENDPOINTS, sinkRequest, type DeliveredEvent, type SinkEndpoints } from './sinks.js';
import type { LogStreamSecrets } from './stream-secrets.js';

/** Events per request at most (the platform's batches are of this order; every sink takes this many). */
export const BATCH_SIZE = 100;

export interface LogStreamDeliveryOptions {
  /** How often a node looks for streams to deliver, and an idle stream for new events (default 1 s). */
  pollMs?: number;
  /** How long deliveries may fail without a success before the stream is suspended (default 15 minutes). */
  suspendAfterMs?: number;
  /** The wait after a first failure, doubled after each further one (default 1 s) up to `maxBackoffMs` (default 1 min). */
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  /** How long a node's hold on a stream lasts unless renewed (default 30 s). */
  leaseMs?: number;
  /** The longest a sink may take to answer (default 10 s; at most a third of the lease). */
  sendTimeoutMs?: number;
  /** Where the Datadog sink sends (tests point it at a local receiver). */
  endpoints?: SinkEndpoints;
}

export interface LogStreamDeliveryDeps {
  storage: Pick<Storage, 'logStreams' | 'logEvents'>;
  tenantId: string;
  secrets: LogStreamSecrets;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  options?: LogStreamDeliveryOptions;
}

export interface LogStreamDelivery {
  /** Starts looking for streams to deliver, every `pollMs`, until `close`. */
  start(): void;
  /** Per stream, events of the log stored after its position (not yet delivered, or not yet skipped by its filters). */
  lag(): Promise<{ stream: string; events: number }[]>;
  /** Stops delivering: requests in flight are aborted (their events are sent again by the next holder), leases released. */
  close(): Promise<void>;
}

const counterOf = (logId: string | null | undefined) => (logId ? Number(logId.slice(LOG_ID_PREFIX.length)) : 0);
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Delivers every active log stream of the tenant to its sink: the events after the stream's position, in log_id
 * order, in batches of at most BATCH_SIZE (a poll every `pollMs` gathers what arrived meanwhile), one request at a
 * time. The position moves only after the sink answered 2xx, so every event is delivered at least once and in order:
 * a failed or interrupted request is sent again, whole, by whichever node delivers next. Failures are retried with
 * exponential backoff; a stream failing for `suspendAfterMs` without a success is suspended with the reason stored,
 * until an update sets it active again (it resumes at its position). Paused and suspended streams are skipped.
 *
 * ONE NODE AT A TIME delivers a stream: it holds the stream's lease, a pair of columns (owner, expiry) taken and
 * renewed by conditional updates (repositories/log-streams.ts). A lease row rather than PostgreSQL advisory locks,
 * because (1) it works the same on SQLite and PostgreSQL, (2) an advisory lock belongs to a database session, so it
 * would pin a pooled connection per stream, and a connection that breaks drops the lock silently while the node
 * goes on sending; a lease expires on its own and names its holder, and (3) the position advances only where the
 * lease owner is this node, so a node that lost its lease cannot move the position. A request starts only with at
 * least half the lease ahead and a sink has a third of it to answer, so a request always ends before the lease could
 * pass to another node: no two nodes send a stream's events at once. That assumes the nodes' clocks agree within a
 * sixth of the lease (5 s by default), as they already must for tokens' expiry times. A node that dies holds its
 * streams until the lease runs out (30 s by default); a node that shuts down releases them at once.
 */
export function logStreamDelivery(deps: LogStreamDeliveryDeps): LogStreamDelivery {
  const { storage, tenantId, secrets, log } = deps;
  const options = deps.options ?? {};
  const pollMs = options.pollMs ?? 1000;
  const suspendAfterMs = options.suspendAfterMs ?? 15 * 60_000;
  const firstBackoffMs = options.firstBackoffMs ?? 1000;
  const maxBackoffMs = options.maxBackoffMs ?? 60_000;
  const leaseMs = options.leaseMs ?? 30_000;
  const sendTimeoutMs = Math.min(options.sendTimeoutMs ?? 10_000, Math.floor(leaseMs / 3));
  const endpoints = options.endpoints ?? DEFAULT_SINK_ENDPOINTS;
  const poster = sinkPoster({ timeoutMs: sendTimeoutMs });
  /** This process, as lease owner: unique even for two registries in one process (tests) or a restarted pid. */
  const owner = `${hostname()}/${process.pid}/${randomId(8)}`;

  const runners = new Map<string, Promise<void>>();
  const sleepers = new Set<() => void>();
  let stopping = false;
  let scanTimer: NodeJS.Timeout | undefined;
  let scanning: Promise<void> | undefined;
  let scanFailing = false;

  /** Waits `ms`, or less when delivery stops. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });

  const newestLogId = async () => (await storage.logEvents.list(tenantId, { sort: 'desc', limit: 1 })).events[0]?.log_id;

  /** Takes or renews the lease; answers until when it holds, or undefined when another node holds it. */
  async function claim(id: string): Promise<number | undefined> {
    const nowMs = Date.now();
    const until = nowMs + leaseMs;
    const held = await storage.logStreams.claim(tenantId, id, owner, new Date(nowMs).toISOString(), new Date(until).toISOString());
    return held ? until : undefined;
  }

  /** Sends one batch; answers the reason it failed, or undefined when the sink acknowledged it. */
  async function send(stream: LogStreamRecord<StoredLogStream>, events: readonly DeliveredEvent[]): Promise<string | undefined> {
    try {
      const request = sinkRequest(stream.data.type, secrets.open(stream.data), events, endpoints);
      const status = await poster.post(request);
      return status >= 200 && status < 300 ? undefined : `the sink answered HTTP ${status}`;
    } catch (error) {
      return message(error);
    }
  }

  /**
   * The delivery loop of one stream on this node, while it holds the lease. Returns when the stream is no longer
   * active, was deleted or suspended, the lease went to another node, or delivery stops.
   */
  async function deliver(id: string, heldUntil: number): Promise<void> {
    let leaseUntil = heldUntil;
    let failures = 0;
    let storageFailing = false;
    /** Keeps at least half the lease ahead (a request may then take its whole timeout); false when it is lost. */
    const keepLease = async () => {
      if (leaseUntil - Date.now() >= leaseMs / 2) return true;
      const until = await claim(id);
      if (until === undefined) return false;
      leaseUntil = until;
      return true;
    };
    /** Waits `ms` in steps, keeping the lease; false when it is lost or delivery stops. */
    const wait = async (ms: number) => {
      const end = Date.now() + ms;
      while (!stopping && Date.now() < end) {
        await sleep(Math.min(end - Date.now(), pollMs));
        if (!stopping && !(await keepLease())) return false;
      }
      return !stopping;
    };

    while (!stopping) {
      try {
        if (!(await keepLease())) return;
        const stream = await storage.logStreams.get<StoredLogStream>(tenantId, id);
        if (!stream || stream.status !== 'active' || stream.leaseOwner !== owner) return;
        // Read before the events: every event up to `newest` is visible to the query below (ids are given in
        // commit order), so when the batch is not full, the filters skipped everything else up to it.
        const newest = await newestLogId();
        const types = typesOfFilters(stream.data.filters);
        const found = await storage.logEvents.after<LogEvent>(tenantId, stream.position ?? undefined, BATCH_SIZE, types ? { types } : undefined);
        const skippedTo = found.length < BATCH_SIZE && newest !== undefined && counterOf(newest) > counterOf(found.at(-1)?.log_id ?? stream.position) ? newest : undefined;
        if (found.length === 0) {
          if (skippedTo !== undefined) await storage.logStreams.advance(tenantId, id, owner, skippedTo, new Date(leaseUntil).toISOString());
          if (!(await wait(pollMs))) return;
          continue;
        }
        if (!(await keepLease())) return;
        const failure = await send(stream, found.map((event) => ({ log_id: event.log_id, data: event })));
        // Aborted by shutdown: not the sink's failure; the next holder sends the batch again.
        if (stopping) return;
        storageFailing = false;
        if (failure === undefined) {
          if (failures > 0) log.info({ stream: id, failures }, 'log stream delivers again');
          failures = 0;
          const until = Date.now() + leaseMs;
          const position = skippedTo ?? (found.at(-1)?.log_id as string);
          if (!(await storage.logStreams.advance(tenantId, id, owner, position, new Date(until).toISOString()))) return;
          leaseUntil = until;
          if (found.length < BATCH_SIZE && !(await wait(pollMs))) return;
          continue;
        }
        failures += 1;
        const failingSince = await storage.logStreams.failed(tenantId, id, owner, new Date().toISOString(), failure);
        if (failingSince === undefined) return;
        if (failures === 1) log.warn({ stream: id, reason: failure }, 'log stream delivery failed; retrying with backoff');
        if (Date.now() - Date.parse(failingSince) >= suspendAfterMs) {
          const minutes = Math.round((Date.now() - Date.parse(failingSince)) / 60_000);
          const reason = `Deliveries have failed since ${failingSince} (${minutes} min); the last one: ${failure}`;
          if (await storage.logStreams.suspend(tenantId, id, owner, reason)) log.warn({ stream: id, reason }, 'log stream suspended');
          return;
        }
        const backoff = Math.min(maxBackoffMs, firstBackoffMs * 2 ** Math.min(failures - 1, 20));
        // ±20 % so that streams failing together do not retry in step.
        if (!(await wait(backoff * (0.8 + Math.random() * 0.4)))) return;
      } catch (error) {
        // The database failed us: the lease may lapse meanwhile, and keepLease finds out before the next request.
        if (!storageFailing) log.warn({ err: error, stream: id }, 'log stream delivery cannot read or write its state; retrying');
        storageFailing = true;
        await sleep(pollMs);
      }
    }
  }

  function run(id: string, heldUntil: number) {
    const runner = deliver(id, heldUntil)
      .catch((error: unknown) => log.error({ err: error, stream: id }, 'log stream delivery stopped unexpectedly'))
      .finally(async () => {
        runners.delete(id);
        await storage.logStreams.release(tenantId, id, owner).catch(() => undefined);
      });
    runners.set(id, runner);
  }

  /** Takes the active streams nobody holds (or whose holder's lease ran out) and starts delivering them. */
  async function scan() {
    try {
      const now = new Date().toISOString();
      for (const stream of await storage.logStreams.list<StoredLogStream>(tenantId)) {
        if (stopping) return;
        if (runners.has(stream.id) || stream.status !== 'active') continue;
        // Reading first spares the database a write per stream and poll on every node while another node holds it.
        if (stream.leaseOwner !== null && stream.leaseOwner !== owner && (stream.leaseExpiresAt ?? '') >= now) continue;
        const until = await claim(stream.id);
        if (until !== undefined) run(stream.id, until);
      }
      scanFailing = false;
    } catch (error) {
      if (!scanFailing) log.warn({ err: error }, 'looking for log streams to deliver failed; trying again');
      scanFailing = true;
    }
  }

  function scheduleScan(delayMs: number) {
    if (stopping) return;
    scanTimer = setTimeout(() => {
      scanning = scan().finally(() => scheduleScan(pollMs));
    }, delayMs);
    scanTimer.unref();
  }

  return {
    start() {
      if (scanTimer === undefined && !stopping) scheduleScan(0);
    },
    async lag() {
      const newest = counterOf(await newestLogId());
      return (await storage.logStreams.list(tenantId)).map((stream) => ({ stream: stream.id, events: Math.max(0, newest - counterOf(stream.position)) }));
    },
    async close() {
      stopping = true;
      clearTimeout(scanTimer);
      for (const wake of [...sleepers]) wake();
      poster.close();
      await scanning;
      await Promise.allSettled([...runners.values()]);
    },
  };
}
