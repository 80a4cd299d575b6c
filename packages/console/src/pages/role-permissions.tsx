import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { ConfirmDialog, ErrorNote, Pager } from '../components.js';
import { PER_PAGE, usePaged } from '../paged.js';
import type { ListPage, Permission, ResourceServer, Role } from '../types.js';

const LISTED_APIS = 100;
const permissionKey = ({ resource_server_identifier, permission_name }: Permission) => ({ resource_server_identifier, permission_name });

/** Adds permissions: pick one of the APIs, then some of the scopes it defines. */
function AddPermissions({ api, path, onAdded }: { api: Api; path: string; onAdded: () => void }) {
  const [apis, setApis] = useState<ListPage<'resource_servers', ResourceServer> | undefined>();
  const [chosen, setChosen] = useState<ResourceServer | undefined>();
  const [checked, setChecked] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');

  useEffect(() => {
    api<ListPage<'resource_servers', ResourceServer>>('GET', `/resource-servers?include_totals=true&per_page=${LISTED_APIS}&fields=id,name,identifier`).then(setApis, setError);
  }, [api]);

  async function choose(id: string) {
    setChecked([]);
    setStatus('');
    setError(undefined);
    if (!id) return setChosen(undefined);
    try {
      setChosen(await api<ResourceServer>('GET', `/resource-servers/${encodeURIComponent(id)}`));
    } catch (caught) {
      setError(caught);
    }
  }

  async function add() {
    if (!chosen) return;
    setError(undefined);
    try {
      await api('POST', path, { permissions: checked.map((permission_name) => ({ resource_server_identifier: chosen.identifier, permission_name })) });
      setStatus(`${checked.length} permission${checked.length === 1 ? '' : 's'} of ${chosen.name} added.`);
      setChecked([]);
      onAdded();
    } catch (caught) {
      setError(caught);
    }
  }

  const toggle = (value: string, on: boolean) => setChecked(on ? [...checked, value] : checked.filter((other) => other !== value));
  return (
    <div class="picker">
      <h3>Add permissions</h3>
      <label for="permission-api">API</label>
      <select id="permission-api" value={chosen?.id ?? ''} onChange={(event) => void choose(event.currentTarget.value)}>
        <option value="">Choose an API…</option>
        {apis?.resource_servers.map((server) => (
          <option key={server.id} value={server.id}>
            {server.name} ({server.identifier})
          </option>
        ))}
      </select>
      {apis && apis.total > apis.resource_servers.length ? <small>The first {apis.resource_servers.length} of {apis.total} APIs are listed.</small> : null}
      {chosen ? (
        chosen.scopes?.length ? (
          <fieldset class="scopes">
            <legend>Permissions of {chosen.name}</legend>
            {chosen.scopes.map((scope) => (
              <label key={scope.value} class="check">
                <input type="checkbox" checked={checked.includes(scope.value)} onChange={(event) => toggle(scope.value, event.currentTarget.checked)} />
                <span>
                  <code>{scope.value}</code>
                  {scope.description ? <small>{scope.description}</small> : null}
                </span>
              </label>
            ))}
          </fieldset>
        ) : (
          <p>This API defines no permissions: add scopes to it first.</p>
        )
      ) : null}
      <ErrorNote error={error} />
      <div class="actions">
        <button type="button" class="primary" disabled={!chosen || checked.length === 0} onClick={() => void add()}>
          Add permissions
        </button>
        {status ? <span role="status">{status}</span> : null}
      </div>
    </div>
  );
}

/** The permissions a role grants, paged by the server, each removable after a confirmation. */
export function RolePermissions({ api, role }: { api: Api; role: Role }) {
  const path = `/roles/${encodeURIComponent(role.id)}/permissions`;
  const { list, error, page, setPage, reload } = usePaged<'permissions', Permission>(api, path, 'permissions');
  const [removing, setRemoving] = useState<Permission | undefined>();
  const [changeError, setChangeError] = useState<unknown>();

  async function remove(permission: Permission) {
    setRemoving(undefined);
    setChangeError(undefined);
    try {
      await api('DELETE', path, { permissions: [permissionKey(permission)] });
      reload();
    } catch (caught) {
      setChangeError(caught);
    }
  }

  return (
    <div class="card">
      <h2>Permissions</h2>
      <ErrorNote error={error ?? changeError} />
      {list ? (
        list.total === 0 ? (
          <p>This role grants no permission yet.</p>
        ) : (
          <>
            <table>
              <caption class="visually-hidden">Permissions of {role.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Permission</th>
                  <th scope="col">API</th>
                  <th scope="col">Description</th>
                  <th scope="col" class="act">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.permissions.map((permission) => (
                  <tr key={`${permission.resource_server_identifier} ${permission.permission_name}`}>
                    <td>
                      <code>{permission.permission_name}</code>
                    </td>
                    <td>{permission.resource_server_name ?? permission.resource_server_identifier}</td>
                    <td>{permission.description}</td>
                    <td class="act">
                      <button type="button" class="danger" onClick={() => setRemoving(permission)}>
                        Remove<span class="visually-hidden"> {permission.permission_name}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager page={page} perPage={PER_PAGE} total={list.total} label="Permissions" onPage={setPage} />
          </>
        )
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
      <AddPermissions api={api} path={path} onAdded={reload} />
      {removing ? (
        <ConfirmDialog title={`Remove ${removing.permission_name}?`} confirmLabel="Remove" onConfirm={() => void remove(removing)} onCancel={() => setRemoving(undefined)}>
          <p>
            Users holding {role.name} lose this permission of {removing.resource_server_name ?? removing.resource_server_identifier} from their next token.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
