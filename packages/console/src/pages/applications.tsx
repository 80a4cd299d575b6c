import { useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ErrorNote, Pager } from '../components.js';
import { enableConnectionsFor } from '../new-application.js';
import { navigate } from '../router.js';
import { freshSecrets } from './application-detail.js';
import { PER_PAGE, usePaged } from '../paged.js';
import { APP_TYPES, type AppType, type Client } from '../types.js';

const typeLabel = (type: AppType | undefined) => APP_TYPES.find((entry) => entry.value === type)?.label ?? type ?? '';

function CreateApplication({ api, onCancel }: PageProps & { onCancel: () => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<AppType>('spa');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await api<Client>('POST', '/clients', { name: name.trim(), app_type: type });
      if (created.client_secret) freshSecrets.set(created.client_id, created.client_secret);
      if (type !== 'non_interactive') await enableConnectionsFor(api, created.client_id);
      navigate(`/admin/applications/${encodeURIComponent(created.client_id)}`);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-title">
      <h2 id="create-title">Create application</h2>
      <label for="app-name">Name</label>
      <input id="app-name" required maxLength={100} value={name} onInput={(event) => setName(event.currentTarget.value)} />
      <fieldset>
        <legend>Type</legend>
        {APP_TYPES.map((entry) => (
          <label key={entry.value} class="choice">
            <input type="radio" name="app-type" value={entry.value} checked={type === entry.value} onChange={() => setType(entry.value)} />
            <span>
              <strong>{entry.label}</strong>
              <small>{entry.hint}</small>
            </span>
          </label>
        ))}
      </fieldset>
      <ErrorNote error={error} />
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          Create
        </button>
      </div>
    </form>
  );
}

export function Applications(props: PageProps) {
  const { api } = props;
  const { list, error, page, setPage } = usePaged<'clients', Client>(api, '/clients?fields=client_id,name,app_type', 'clients');
  const [creating, setCreating] = useState(false);

  return (
    <section>
      <div class="title-row">
        <h1 tabIndex={-1}>Applications</h1>
        {!creating ? (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            Create application
          </button>
        ) : null}
      </div>
      {creating ? <CreateApplication {...props} onCancel={() => setCreating(false)} /> : null}
      <ErrorNote error={error} />
      {list ? (
        <>
          <table>
            <caption class="visually-hidden">Applications</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Client ID</th>
              </tr>
            </thead>
            <tbody>
              {list.clients.map((client) => (
                <tr key={client.client_id}>
                  <td>
                    <a href={`/admin/applications/${encodeURIComponent(client.client_id)}`}>{client.name}</a>
                  </td>
                  <td>{typeLabel(client.app_type)}</td>
                  <td>
                    <code>{client.client_id}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} perPage={PER_PAGE} total={list.total} label="Applications" onPage={setPage} />
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}
