/** Polls `probe` until it returns true, for at most `withinMs`; throws naming `what` otherwise. */
export async function eventually(what: string, probe: () => Promise<boolean>, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Retries `probe` (assertions that throw until they hold) for at most `withinMs`; answers its first value that passes. */
export async function until<T>(probe: () => Promise<T>, withinMs = 20_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
