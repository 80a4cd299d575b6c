/**
 * At most `slots` tasks run at once; the others wait in arrival order. A task that fails frees its slot like one
 * that succeeds.
 */
export function concurrencyLimit(slots: number) {
  if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`concurrencyLimit: slots must be a positive integer, not ${slots}`);
  let running = 0;
  const waiting: (() => void)[] = [];

  const release = () => {
    const next = waiting.shift();
    // The slot passes straight to the next task, so `running` never dips and lets a newcomer jump the queue.
    if (next) next();
    else running -= 1;
  };

  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (running < slots) running += 1;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
    /** Tasks running and waiting now (for tests and diagnostics). */
    get load() {
      return { running, waiting: waiting.length };
    },
  };
}
