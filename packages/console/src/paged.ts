import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.js';
import type { ListPage } from './types.js';

export const PER_PAGE = 25;

/**
 * One page of a list the server pages (`page`, `per_page`, `include_totals`), loaded again when the path or page
 * changes or after `reload()` (a change the console made to the list).
 */
export function usePaged<Key extends string, T>(api: Api, path: string, key: Key) {
  const [page, setPage] = useState(0);
  const [list, setList] = useState<ListPage<Key, T> | undefined>();
  const [error, setError] = useState<unknown>();
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let current = true;
    setError(undefined);
    const separator = path.includes('?') ? '&' : '?';
    api<ListPage<Key, T>>('GET', `${path}${separator}include_totals=true&page=${page}&per_page=${PER_PAGE}`).then(
      (loaded) => {
        if (!current) return;
        // A removal emptied the last page: show the one before it.
        if (loaded[key].length === 0 && page > 0) setPage(page - 1);
        else setList(loaded);
      },
      (caught: unknown) => {
        if (!current) return;
        setList(undefined);
        setError(caught);
      },
    );
    return () => {
      current = false;
    };
  }, [api, path, key, page, version]);

  return { page, setPage, list, error, reload: () => setVersion((value) => value + 1) };
}
