import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Storage } from '../storage/storage.js';

/**
 * Expired artifacts are kept this long before they are deleted. Readers already treat an expired artifact as absent;
 * keeping the row a while longer lets a code replayed soon after it expired still revoke what it issued
 * (grants/authorization-code.ts), and leaves recent history for an operator to look at.
 */
export const SWEEP_RETENTION_SECONDS = 86_400;

/** Rows deleted per statement; a backlog is deleted in several statements with the event loop free in between. */
export const SWEEP_BATCH = 500;

export interface ArtifactSweeperDeps {
  storage: Pick<Storage, 'artifacts' | 'logEvents' | 'actionExecutions'>;
  /** Seconds between the end of one sweep and the start of the next. */
  intervalSeconds: number;
  now: () => Date;
  log: Pick<Logger, 'info' | 'warn'>;
  batch?: number;
}

/**
 * Deletes expired sessions, login transactions, codes, refresh-token chains and counters in the background, so that
 * the artifacts table holds what is live (and a day of history) instead of every login ever made; tenant log
 * events past their retention; and Actions executions past theirs (10 days). Every node runs one; two nodes sweeping at once delete disjoint or already-deleted
 * rows, which is harmless. The timer does not keep the process alive, and `stop` waits for a sweep in progress.
 */
export function artifactSweeper(deps: ArtifactSweeperDeps) {
  const batch = deps.batch ?? SWEEP_BATCH;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  /** Deletes in batches until one deletes fewer rows than the batch size. Returns how many rows went. */
  async function inBatches(sweep: (before: string, limit: number) => Promise<number>, before: string): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await sweep(before, batch);
      total += deleted;
      if (deleted < batch || stopped) return total;
      await yieldToEventLoop();
    }
  }

  /**
   * One sweep: expired artifacts, a day after they expired; tenant log events whose retention is over
   * (LATCHKEY_LOG_RETENTION_DAYS, already counted into their expiry); Actions executions likewise. Returns how many
   * rows went.
   */
  async function sweepNow(): Promise<number> {
    const now = deps.now().getTime();
    const nowIso = new Date(now).toISOString();
    let deleted = await inBatches((before, limit) => deps.storage.artifacts.sweep(before, limit), new Date(now - SWEEP_RETENTION_SECONDS * 1000).toISOString());
    if (stopped) return deleted;
    deleted += await inBatches((before, limit) => deps.storage.logEvents.deleteExpired(before, limit), nowIso);
    if (stopped) return deleted;
    return deleted + (await inBatches((before, limit) => deps.storage.actionExecutions.deleteExpired(before, limit), nowIso));
  }

  function schedule() {
    timer = setTimeout(() => {
      running = sweepNow()
        .then((deleted) => {
          if (deleted > 0) deps.log.info({ deleted }, 'expired artifacts, log events and action executions deleted');
        })
        .catch((error: unknown) => deps.log.warn({ err: error }, 'sweeping expired artifacts failed; trying again later'))
        .finally(() => {
          running = undefined;
          if (!stopped) schedule();
        });
    }, deps.intervalSeconds * 1000);
    timer.unref();
  }

  return {
    sweepNow,
    start() {
      if (deps.intervalSeconds > 0 && !stopped && timer === undefined) schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

export type ArtifactSweeper = ReturnType<typeof artifactSweeper>;
