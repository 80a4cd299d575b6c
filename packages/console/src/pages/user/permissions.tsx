import { useState } from 'preact/hooks';
import { ConfirmDialog, ErrorNote, Pager, StatusNote } from '../../components.js';
import { useAction, useLoaded } from '../../hooks.js';
import type { ListPage, ResourceServer, UserPermission } from '../../types.js';
import type { UserSectionProps } from '../user-detail.js';

const PER_PAGE = 10;
const API_CHOICES = 50;

const sourceText = (permission: UserPermission) =>
  permission.sources.map((source) => (source.source_type === 'DIRECT' ? 'Direct' : `Role ${source.source_name}`)).join(', ');
const isDirect = (permission: UserPermission) => permission.sources.some((source) => source.source_type === 'DIRECT');

/** Permissions of one API, chosen from what it defines, given to the user directly. */
function AssignPermissions({ api, userPath, onAssigned }: Pick<UserSectionProps, 'api' | 'userPath'> & { onAssigned: () => void }) {
  const apis = useLoaded(() => api<ListPage<'resource_servers', ResourceServer>>('GET', `/resource-servers?include_totals=true&per_page=${API_CHOICES}`), [api]);
  const [chosen, setChosen] = useState('');
  const [picked, setPicked] = useState<string[]>([]);
  const action = useAction();
  const server = apis.data?.resource_servers.find((entry) => entry.identifier === chosen);

  async function assign(event: Event) {
    event.preventDefault();
    await action.run(async () => {
      if (!server || picked.length === 0) throw new Error('Choose an API and at least one of its permissions.');
      await api('POST', `${userPath}/permissions`, { permissions: picked.map((permission_name) => ({ resource_server_identifier: server.identifier, permission_name })) });
      setPicked([]);
      onAssigned();
      return `${picked.join(', ')} ${picked.length === 1 ? 'is' : 'are'} assigned.`;
    });
  }

  return (
    <form class="card" onSubmit={assign} aria-labelledby="assign-permissions-title">
      <h2 id="assign-permissions-title">Assign permissions</h2>
      <ErrorNote error={apis.error} />
      <label for="permission-api">API</label>
      <select
        id="permission-api"
        value={chosen}
        onChange={(event) => {
          setChosen(event.currentTarget.value);
          setPicked([]);
        }}
      >
        <option value="">Choose an API</option>
        {apis.data?.resource_servers.map((entry) => (
          <option key={entry.id} value={entry.identifier}>
            {entry.name}
          </option>
        ))}
      </select>
      {apis.data && apis.data.total > API_CHOICES ? <small>The first {API_CHOICES} of {apis.data.total} APIs.</small> : null}
      {server ? (
        <fieldset>
          <legend>Permissions of {server.name}</legend>
          {(server.scopes ?? []).map((scope) => (
            <label key={scope.value} class="check">
              <input
                type="checkbox"
                checked={picked.includes(scope.value)}
                onChange={(event) => setPicked(event.currentTarget.checked ? [...picked, scope.value] : picked.filter((value) => value !== scope.value))}
              />
              <span>
                <code>{scope.value}</code> {scope.description && scope.description !== scope.value ? <small>{scope.description}</small> : null}
              </span>
            </label>
          ))}
          {(server.scopes ?? []).length === 0 ? <p>This API defines no permissions.</p> : null}
        </fieldset>
      ) : null}
      <ErrorNote error={action.error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy || picked.length === 0}>
          Assign permissions
        </button>
        <StatusNote status={action.status} />
      </div>
    </form>
  );
}

/** Every permission the user holds, with where it comes from; the direct ones can be taken away here. */
export function UserPermissions({ api, userPath, version }: UserSectionProps & { version: number }) {
  const [page, setPage] = useState(0);
  const list = useLoaded(() => api<ListPage<'permissions', UserPermission>>('GET', `${userPath}/permissions?include_totals=true&page=${page}&per_page=${PER_PAGE}`), [api, userPath, page, version]);
  const [removing, setRemoving] = useState<UserPermission | undefined>();
  const action = useAction();

  function remove(permission: UserPermission) {
    setRemoving(undefined);
    void action.run(async () => {
      await api('DELETE', `${userPath}/permissions`, { permissions: [{ resource_server_identifier: permission.resource_server_identifier, permission_name: permission.permission_name }] });
      list.reload();
      return `${permission.permission_name} is removed.`;
    });
  }

  return (
    <>
      <h2>Permissions</h2>
      <ErrorNote error={list.error ?? action.error} />
      <StatusNote status={action.status} />
      {list.data ? (
        <>
          <table>
            <caption class="visually-hidden">Permissions of the user</caption>
            <thead>
              <tr>
                <th scope="col">Permission</th>
                <th scope="col">API</th>
                <th scope="col">Given by</th>
                <th scope="col" class="act">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.permissions.map((permission) => (
                <tr key={`${permission.resource_server_identifier} ${permission.permission_name}`}>
                  <td>
                    <code>{permission.permission_name}</code>
                  </td>
                  <td>{permission.resource_server_name}</td>
                  <td>{sourceText(permission)}</td>
                  <td class="act">
                    {isDirect(permission) ? (
                      <button type="button" class="danger" disabled={action.busy} onClick={() => setRemoving(permission)}>
                        Remove <span class="visually-hidden">{permission.permission_name}</span>
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.permissions.length === 0 ? <p>No permissions.</p> : <Pager page={page} perPage={PER_PAGE} total={list.data.total} label="Permissions" onPage={setPage} />}
        </>
      ) : null}
      <AssignPermissions api={api} userPath={userPath} onAssigned={list.reload} />
      {removing ? (
        <ConfirmDialog title={`Remove ${removing.permission_name}?`} confirmLabel="Remove" onConfirm={() => remove(removing)} onCancel={() => setRemoving(undefined)}>
          <p>The user no longer holds it directly{removing.sources.length > 1 ? ' (a role still gives it)' : ''}.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
