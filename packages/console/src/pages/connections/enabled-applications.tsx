import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../../app.js';
import { ConfirmDialog, ErrorNote, Pager } from '../../components.js';
import type { Client, Connection, ListPage } from '../../types.js';

const PER_PAGE = 10;

/**
 * The applications that may use the connection, a page of applications at a time, each a switch. A change goes
 * through the connection's enabled-clients API (PATCH /connections/{id}/clients), which changes only the
 * application named, so two administrators changing different applications do not undo each other.
 */
export function EnabledApplications({ api, settings, connection, onChange }: PageProps & { connection: Connection; onChange: (enabledClients: string[]) => void }) {
  const [page, setPage] = useState(0);
  const [list, setList] = useState<ListPage<'clients', Client> | undefined>();
  const [enabled, setEnabled] = useState(() => new Set(connection.enabled_clients));
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');
  const [confirming, setConfirming] = useState<Client | undefined>();

  useEffect(() => {
    api<ListPage<'clients', Client>>('GET', `/clients?include_totals=true&page=${page}&per_page=${PER_PAGE}&fields=client_id,name,app_type`).then(setList, setError);
  }, [api, page]);

  async function change(client: Client, status: boolean) {
    setConfirming(undefined);
    setError(undefined);
    setStatus('');
    try {
      await api('PATCH', `/connections/${encodeURIComponent(connection.id)}/clients`, [{ client_id: client.client_id, status }]);
      const next = new Set(enabled);
      if (status) next.add(client.client_id);
      else next.delete(client.client_id);
      setEnabled(next);
      onChange([...next]);
      setStatus(`${connection.name} is ${status ? 'enabled' : 'disabled'} for ${client.name}.`);
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <div class="card">
      <h2 id="applications-title">Applications</h2>
      <p class="muted">
        Users of the applications ticked here can log in (and sign up) through this connection. It is enabled for {enabled.size}{' '}
        {enabled.size === 1 ? 'application' : 'applications'}.
      </p>
      <ErrorNote error={error} />
      {list ? (
        <>
          <ul class="switches" aria-labelledby="applications-title">
            {list.clients.map((client) => (
              <li key={client.client_id}>
                <label class="check">
                  <input
                    type="checkbox"
                    checked={enabled.has(client.client_id)}
                    onChange={(event) => {
                      const on = event.currentTarget.checked;
                      // The console's own sign-in goes through its connections: turning one off asks first.
                      if (!on && client.client_id === settings.clientId) {
                        event.currentTarget.checked = true;
                        setConfirming(client);
                      } else void change(client, on);
                    }}
                  />
                  {client.name}
                </label>
              </li>
            ))}
          </ul>
          <Pager page={page} perPage={PER_PAGE} total={list.total} label="Applications" onPage={setPage} />
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
      {status ? <p role="status">{status}</p> : null}
      {confirming ? (
        <ConfirmDialog title={`Disable ${connection.name} for the console?`} confirmLabel="Disable" onConfirm={() => void change(confirming, false)} onCancel={() => setConfirming(undefined)}>
          <p>Administrators who log in to this console through {connection.name} will no longer be able to.</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
