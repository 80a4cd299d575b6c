import { useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ConfirmDialog, ErrorNote, Pager } from '../components.js';
import { PER_PAGE, usePaged } from '../paged.js';
import { UserPicker } from '../pickers.js';
import type { Holder, Role, User } from '../types.js';

/** Why taking an administrator's role deserves a second look: the last one, or oneself, locks the console. */
function RemovalWarning({ holder, last, self }: { holder: string; last: boolean; self: boolean }) {
  if (last) {
    return (
      <p class="warning">
        {holder} is the last holder of the console’s administrator role: once removed, nobody can use this console. Only <code>latchkey admin create</code> on the
        server makes a new administrator.
      </p>
    );
  }
  if (self) return <p class="warning">This is you: you lose access to this console at once.</p>;
  return <p class="warning">{holder} can no longer use this console.</p>;
}

/** Who holds a role (paged by the server), giving it to users found by search or id, and taking it back. */
export function RoleUsers({ api, session, role, administrators }: PageProps & { role: Role; administrators: boolean }) {
  const { list, error, page, setPage, reload } = usePaged<'users', Holder>(api, `/roles/${encodeURIComponent(role.id)}/users`, 'users');
  const [removing, setRemoving] = useState<Holder | undefined>();
  const [changeError, setChangeError] = useState<unknown>();

  async function assign(user: User) {
    await api('POST', `/roles/${encodeURIComponent(role.id)}/users`, { users: [user.user_id] });
    reload();
  }

  async function remove(holder: Holder) {
    setRemoving(undefined);
    setChangeError(undefined);
    try {
      await api('DELETE', `/users/${encodeURIComponent(holder.user_id)}/roles`, { roles: [role.id] });
      reload();
    } catch (caught) {
      setChangeError(caught);
    }
  }

  const label = (holder: Holder) => holder.email ?? holder.name ?? holder.user_id;
  return (
    <div class="card">
      <h2>Users</h2>
      <ErrorNote error={error ?? changeError} />
      {list ? (
        list.total === 0 ? (
          <p>Nobody holds this role yet.</p>
        ) : (
          <>
            <table>
              <caption class="visually-hidden">Users holding {role.name}</caption>
              <thead>
                <tr>
                  <th scope="col">User</th>
                  <th scope="col">Name</th>
                  <th scope="col" class="act">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.users.map((holder) => (
                  <tr key={holder.user_id}>
                    <td>
                      <a href={`/admin/users/${encodeURIComponent(holder.user_id)}`}>{label(holder)}</a>
                    </td>
                    <td>{holder.name}</td>
                    <td class="act">
                      <button type="button" class="danger" onClick={() => setRemoving(holder)}>
                        Remove<span class="visually-hidden"> {label(holder)}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager page={page} perPage={PER_PAGE} total={list.total} label="Users" onPage={setPage} />
          </>
        )
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
      <UserPicker api={api} id="role-user-search" label="Assign the role to a user" action="Assign" onPick={assign} />
      {removing && list ? (
        <ConfirmDialog title={`Take ${role.name} from ${label(removing)}?`} confirmLabel="Remove" onConfirm={() => void remove(removing)} onCancel={() => setRemoving(undefined)}>
          {administrators ? (
            <RemovalWarning holder={label(removing)} last={list.total === 1} self={removing.email !== undefined && removing.email === session.email} />
          ) : (
            <p>They lose its permissions from their next token.</p>
          )}
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
