import { useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { SIGNING_ALGORITHMS, type ResourceServer } from '../api-types.js';
import { ErrorNote, Pager } from '../components.js';
import { navigate } from '../router.js';
import { PER_PAGE, usePaged } from '../paged.js';


export const apiPath = (api: Pick<ResourceServer, 'id'>) => `/admin/apis/${encodeURIComponent(api.id)}`;

function CreateApi({ api, onCancel }: PageProps & { onCancel: () => void }) {
  const [name, setName] = useState('');
  const [identifier, setIdentifier] = useState('');
  const [algorithm, setAlgorithm] = useState('RS256');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await api<ResourceServer>('POST', '/resource-servers', { name: name.trim(), identifier: identifier.trim(), signing_alg: algorithm });
      navigate(apiPath(created));
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-api-title">
      <h2 id="create-api-title">Create API</h2>
      <label for="api-name">Name</label>
      <input id="api-name" required maxLength={200} value={name} onInput={(event) => setName(event.currentTarget.value)} />
      <label for="api-identifier">Identifier</label>
      <input id="api-identifier" required maxLength={600} aria-describedby="api-identifier-hint" value={identifier} onInput={(event) => setIdentifier(event.currentTarget.value)} />
      <small id="api-identifier-hint">
        Usually the API's URL, e.g. <code>https://orders.example.com/</code>: applications ask for it as the <code>audience</code>. It cannot be changed later.
      </small>
      <label for="api-algorithm">Signing algorithm</label>
      <select id="api-algorithm" value={algorithm} onChange={(event) => setAlgorithm(event.currentTarget.value)}>
        {SIGNING_ALGORITHMS.map((entry) => (
          <option key={entry.value} value={entry.value}>
            {entry.label}
          </option>
        ))}
      </select>
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

/** The APIs that access tokens are issued for, the Management API among them (a system API). */
export function Apis(props: PageProps) {
  const { api } = props;
  const { list, error, page, setPage } = usePaged<'resource_servers', ResourceServer>(api, '/resource-servers?fields=id,name,identifier,is_system', 'resource_servers');
  const [creating, setCreating] = useState(false);

  return (
    <section>
      <div class="title-row">
        <h1 tabIndex={-1}>APIs</h1>
        {!creating ? (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            Create API
          </button>
        ) : null}
      </div>
      <p class="muted">Applications ask for an API's identifier as the audience of their access tokens; its permissions are the scopes they may hold.</p>
      {creating ? <CreateApi {...props} onCancel={() => setCreating(false)} /> : null}
      <ErrorNote error={error} />
      {list ? (
        <>
          <table>
            <caption class="visually-hidden">APIs</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Identifier</th>
              </tr>
            </thead>
            <tbody>
              {list.resource_servers.map((server) => (
                <tr key={server.id}>
                  <td>
                    <a href={apiPath(server)}>{server.name}</a>
                    {server.is_system ? <span class="tag">System</span> : null}
                  </td>
                  <td>
                    <code>{server.identifier}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} perPage={PER_PAGE} total={list.total} label="APIs" onPage={setPage} />
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}
