import { useState } from 'preact/hooks';
import { ConfirmDialog, ErrorNote, Pager, StatusNote } from '../../components.js';
import { useAction, useLoaded } from '../../hooks.js';
import type { ListPage, Role } from '../../types.js';
import type { UserSectionProps } from '../user-detail.js';
import { UserPermissions } from './permissions.js';

const PER_PAGE = 10;

/** Roles found by name (the API's name_filter), each with a button that gives it to the user. */
function AssignRole({ api, userPath, onAssigned }: Pick<UserSectionProps, 'api' | 'userPath'> & { onAssigned: (role: Role) => void }) {
  const [text, setText] = useState('');
  const [found, setFound] = useState<ListPage<'roles', Role> | undefined>();
  const action = useAction();

  async function search(event: Event) {
    event.preventDefault();
    const query = new URLSearchParams({ include_totals: 'true', per_page: String(PER_PAGE), name_filter: text.trim() });
    await action.run(async () => setFound(await api<ListPage<'roles', Role>>('GET', `/roles?${query.toString()}`)));
  }
  const assign = (role: Role) =>
    void action.run(async () => {
      await api('POST', `${userPath}/roles`, { roles: [role.id] });
      onAssigned(role);
      return `${role.name} is assigned.`;
    });

  return (
    <form class="card" onSubmit={search} aria-labelledby="assign-role-title">
      <h2 id="assign-role-title">Assign a role</h2>
      <label for="role-search">Role name</label>
      <div class="row">
        <input id="role-search" type="search" value={text} aria-describedby="role-search-hint" onInput={(event) => setText(event.currentTarget.value)} />
        <button type="submit" disabled={action.busy}>
          Find roles
        </button>
      </div>
      <small id="role-search-hint">Part of a role's name; leave it empty to list the first roles.</small>
      <ErrorNote error={action.error} />
      <StatusNote status={action.status} />
      {found ? (
        <ul class="plain">
          {found.roles.map((role) => (
            <li key={role.id}>
              <button type="button" disabled={action.busy} onClick={() => assign(role)}>
                Assign <span class="visually-hidden">role</span> {role.name}
              </button>{' '}
              <span class="muted">{role.description}</span>
            </li>
          ))}
          {found.total > found.roles.length ? <li class="muted">{found.total - found.roles.length} more: type more of the name.</li> : null}
          {found.roles.length === 0 ? <li>No role matches.</li> : null}
        </ul>
      ) : null}
    </form>
  );
}

/** The roles given to the user (and through them permissions), and the permissions given directly. */
export function UserRoles(props: UserSectionProps) {
  const { api, userPath } = props;
  const [page, setPage] = useState(0);
  const roles = useLoaded(() => api<ListPage<'roles', Role>>('GET', `${userPath}/roles?include_totals=true&page=${page}&per_page=${PER_PAGE}`), [api, userPath, page]);
  const [removing, setRemoving] = useState<Role | undefined>();
  const [permissionsVersion, setPermissionsVersion] = useState(0);
  const action = useAction();

  const changed = () => {
    roles.reload();
    // A role brings its permissions: the list below shows them with their source.
    setPermissionsVersion((value) => value + 1);
  };
  function remove(role: Role) {
    setRemoving(undefined);
    void action.run(async () => {
      await api('DELETE', `${userPath}/roles`, { roles: [role.id] });
      changed();
      return `${role.name} is removed.`;
    });
  }

  return (
    <>
      <h2>Roles</h2>
      <ErrorNote error={roles.error ?? action.error} />
      <StatusNote status={action.status} />
      {roles.data ? (
        <>
          <table>
            <caption class="visually-hidden">Roles of the user</caption>
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">Description</th>
                <th scope="col" class="act">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {roles.data.roles.map((role) => (
                <tr key={role.id}>
                  <td>{role.name}</td>
                  <td>{role.description}</td>
                  <td class="act">
                    <button type="button" class="danger" disabled={action.busy} onClick={() => setRemoving(role)}>
                      Remove <span class="visually-hidden">{role.name}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {roles.data.roles.length === 0 ? <p>No roles.</p> : <Pager page={page} perPage={PER_PAGE} total={roles.data.total} label="Roles" onPage={setPage} />}
        </>
      ) : null}
      <AssignRole api={api} userPath={userPath} onAssigned={changed} />
      <UserPermissions {...props} version={permissionsVersion} />
      {removing ? (
        <ConfirmDialog title={`Remove ${removing.name}?`} confirmLabel="Remove" onConfirm={() => remove(removing)} onCancel={() => setRemoving(undefined)}>
          <p>The user loses the permissions this role gives, from their next token on.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
