/**
 * Runs tasks one after another per key, within this process: a second task for a key starts when the first has
 * settled. Keys without a task in flight take no memory.
 */
export function keyedSerial() {
  const tails = new Map<string, Promise<unknown>>();
  return async function serially<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}
