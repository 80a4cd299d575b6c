import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { ConfirmDialog, ErrorNote, Pager } from '../components.js';
import { PER_PAGE, usePaged } from '../paged.js';
import type { Connection, EnabledConnection, ListPage, Organization } from '../types.js';

const LISTED_CONNECTIONS = 100;

function EnableConnection({ api, path, onEnabled }: { api: Api; path: string; onEnabled: () => void }) {
  const [connections, setConnections] = useState<ListPage<'connections', Connection> | undefined>();
  const [chosen, setChosen] = useState('');
  const [assign, setAssign] = useState(false);
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    api<ListPage<'connections', Connection>>('GET', `/connections?include_totals=true&per_page=${LISTED_CONNECTIONS}&fields=id,name,strategy`).then((loaded) => {
      setConnections(loaded);
      setChosen(loaded.connections[0]?.id ?? '');
    }, setError);
  }, [api]);

  async function submit(event: Event) {
    event.preventDefault();
    setError(undefined);
    try {
      await api('POST', path, { connection_id: chosen, assign_membership_on_login: assign });
      setAssign(false);
      onEnabled();
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <form class="picker" onSubmit={submit} aria-labelledby="enable-connection-title">
      <h3 id="enable-connection-title">Enable a connection</h3>
      <label for="organization-connection">Connection to enable</label>
      <select id="organization-connection" value={chosen} onChange={(event) => setChosen(event.currentTarget.value)}>
        {connections?.connections.map((connection) => (
          <option key={connection.id} value={connection.id}>
            {connection.name} ({connection.strategy})
          </option>
        ))}
      </select>
      {connections && connections.total > connections.connections.length ? <small>The first {connections.connections.length} of {connections.total} connections are listed.</small> : null}
      <label class="check">
        <input type="checkbox" checked={assign} onChange={(event) => setAssign(event.currentTarget.checked)} aria-describedby="assign-membership-hint" />
        Members join on login
      </label>
      <small id="assign-membership-hint">Whoever logs in to the organization with this connection becomes a member (assign_membership_on_login).</small>
      <ErrorNote error={error} />
      <div class="actions">
        <button type="submit" disabled={!chosen}>
          Enable connection
        </button>
      </div>
    </form>
  );
}

/** The connections an organization's members log in with: enabled, changed (membership on login) and disabled. */
export function OrganizationConnections({ api, organization }: { api: Api; organization: Organization }) {
  const path = `/organizations/${encodeURIComponent(organization.id)}/enabled_connections`;
  const { list, error, page, setPage, reload } = usePaged<'enabled_connections', EnabledConnection>(api, path, 'enabled_connections');
  const [removing, setRemoving] = useState<EnabledConnection | undefined>();
  const [changeError, setChangeError] = useState<unknown>();

  async function change(work: () => Promise<unknown>) {
    setChangeError(undefined);
    try {
      await work();
    } catch (caught) {
      setChangeError(caught);
    }
    reload();
  }

  const at = (enabled: EnabledConnection) => `${path}/${encodeURIComponent(enabled.connection_id)}`;
  return (
    <div class="card">
      <h2>Connections</h2>
      <ErrorNote error={error ?? changeError} />
      {list ? (
        list.total === 0 ? (
          <p>No connection is enabled: members cannot log in to the organization yet.</p>
        ) : (
          <>
            <table>
              <caption class="visually-hidden">Connections of {organization.display_name ?? organization.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Connection</th>
                  <th scope="col">Members join on login</th>
                  <th scope="col">Strategy</th>
                  <th scope="col" class="act">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.enabled_connections.map((enabled) => (
                  <tr key={enabled.connection_id}>
                    <td>{enabled.connection.name}</td>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Members join on login with ${enabled.connection.name}`}
                        checked={enabled.assign_membership_on_login}
                        onChange={(event) => void change(() => api('PATCH', at(enabled), { assign_membership_on_login: event.currentTarget.checked }))}
                      />
                    </td>
                    <td>{enabled.connection.strategy}</td>
                    <td class="act">
                      <button type="button" class="danger" onClick={() => setRemoving(enabled)}>
                        Disable<span class="visually-hidden"> {enabled.connection.name}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager page={page} perPage={PER_PAGE} total={list.total} label="Connections" onPage={setPage} />
          </>
        )
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
      <EnableConnection api={api} path={path} onEnabled={reload} />
      {removing ? (
        <ConfirmDialog
          title={`Disable ${removing.connection.name} for ${organization.display_name ?? organization.name}?`}
          confirmLabel="Disable"
          onConfirm={() => {
            setRemoving(undefined);
            void change(() => api('DELETE', at(removing)));
          }}
          onCancel={() => setRemoving(undefined)}
        >
          <p>Members can no longer log in to the organization with it. Their accounts and memberships stay.</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
