import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import type { Connection } from '../../api-types.js';
import { ErrorNote, Pager } from '../../components.js';
import type { Client, ListPage } from '../../types.js';

const PER_PAGE = 10;

/**
 * The connections users of this application may sign in with, one switch each: the connections' own enabled-clients
 * API changes this application's status alone (`PATCH /connections/{id}/clients`), so no other application's is
 * rewritten from a stale copy.
 */
export function EnabledConnections({ api, client }: { api: Api; client: Client }) {
  const [page, setPage] = useState(0);
  const [list, setList] = useState<ListPage<'connections', Connection> | undefined>();
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');

  useEffect(() => {
    setError(undefined);
    api<ListPage<'connections', Connection>>('GET', `/connections?include_totals=true&page=${page}&per_page=${PER_PAGE}&fields=id,name,strategy,enabled_clients`).then(setList, setError);
  }, [api, page]);

  const setEnabled = (connection: Connection, enabled: boolean) =>
    setList((current) =>
      current && {
        ...current,
        connections: current.connections.map((entry) =>
          entry.id !== connection.id ? entry : { ...entry, enabled_clients: enabled ? [...entry.enabled_clients, client.client_id] : entry.enabled_clients.filter((id) => id !== client.client_id) },
        ),
      },
    );

  async function toggle(connection: Connection, enabled: boolean) {
    setError(undefined);
    setStatus('');
    // Shown at once; put back if the API refuses.
    setEnabled(connection, enabled);
    try {
      await api('PATCH', `/connections/${encodeURIComponent(connection.id)}/clients`, [{ client_id: client.client_id, status: enabled }]);
      setStatus(`${connection.name} ${enabled ? 'enabled' : 'disabled'} for this application.`);
    } catch (caught) {
      setEnabled(connection, !enabled);
      setError(caught);
    }
  }

  return (
    <div class="card" id="connections">
      <h2>Connections</h2>
      <p class="muted">Where users of this application may sign in from: a connection that is off is not offered to them.</p>
      <ErrorNote error={error} />
      {status ? <p role="status">{status}</p> : null}
      {list ? (
        <>
          <table>
            <caption class="visually-hidden">Connections for this application</caption>
            <thead>
              <tr>
                <th scope="col">Connection (enabled)</th>
                <th scope="col">Strategy</th>
              </tr>
            </thead>
            <tbody>
              {list.connections.map((connection) => (
                <tr key={connection.id}>
                  <td>
                    <label class="check">
                      <input type="checkbox" checked={connection.enabled_clients.includes(client.client_id)} onChange={(event) => void toggle(connection, event.currentTarget.checked)} />
                      {connection.name}
                    </label>
                  </td>
                  <td>
                    <code>{connection.strategy}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.connections.length === 0 ? <p>No connections yet.</p> : null}
          {list.total > PER_PAGE ? <Pager page={page} perPage={PER_PAGE} total={list.total} label="Connections" onPage={setPage} /> : null}
        </>
      ) : null}
    </div>
  );
}
