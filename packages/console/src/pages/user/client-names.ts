import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import type { Client } from '../../types.js';

/** Names already read in this tab: an application's name rarely changes while a page is open. */
const known = new Map<string, string>();

/**
 * The names of the applications a page shows by id (at most a page of them), read one by one: a session or refresh
 * token names its application only by client id. An application that cannot be read keeps its id.
 */
export function useClientNames(api: Api, ids: readonly string[]): (id: string) => string {
  const [, setRead] = useState(0);
  const wanted = [...new Set(ids)].filter((id) => !known.has(id));
  useEffect(() => {
    if (wanted.length === 0) return;
    let current = true;
    void Promise.all(
      wanted.map((id) =>
        api<Client>('GET', `/clients/${encodeURIComponent(id)}?fields=name`).then(
          (client) => known.set(id, client.name),
          () => known.set(id, id),
        ),
      ),
    ).then(() => current && setRead((value) => value + 1));
    return () => {
      current = false;
    };
  }, [api, wanted.join(' ')]);
  return (id) => known.get(id) ?? id;
}
