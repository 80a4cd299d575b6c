import { useEffect, useState } from 'preact/hooks';

/**
 * What `load` answers, loaded again whenever `deps` change or `reload` is called (after a change the page made). An
 * answer that arrives after a newer load started is dropped, so a slow page never overwrites a faster one.
 */
export function useLoaded<T>(load: () => Promise<T>, deps: readonly unknown[]): { data: T | undefined; error: unknown; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: unknown }>({});
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setState({ data }),
      (error: unknown) => current && setState({ error }),
    );
    return () => {
      current = false;
    };
    // The caller names what the load depends on: `load` itself is a new function at every render.
  }, [...deps, version]);
  return { data: state.data, error: state.error, reload: () => setVersion((value) => value + 1) };
}

/** The cursors of a list paged by checkpoint: the current `from`, and the ones before it to go back to. */
export function useCursor(): { from: string | undefined; hasPrevious: boolean; next: (from: string) => void; previous: () => void; reset: () => void } {
  const [stack, setStack] = useState<string[]>([]);
  return {
    from: stack.at(-1),
    hasPrevious: stack.length > 0,
    next: (from) => setStack((cursors) => [...cursors, from]),
    previous: () => setStack((cursors) => cursors.slice(0, -1)),
    reset: () => setStack([]),
  };
}

/** A change the page makes: busy while it runs, its refusal kept for an ErrorNote, `done` told in words afterwards. */
export function useAction(): { busy: boolean; error: unknown; status: string; run: (work: () => Promise<string | void>) => Promise<boolean>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');
  return {
    busy,
    error,
    status,
    async run(work) {
      setBusy(true);
      setError(undefined);
      setStatus('');
      try {
        setStatus((await work()) ?? '');
        return true;
      } catch (caught) {
        setError(caught);
        return false;
      } finally {
        setBusy(false);
      }
    },
    clear: () => {
      setError(undefined);
      setStatus('');
    },
  };
}
