import { useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ErrorNote, Pager } from '../components.js';
import { PER_PAGE, usePaged } from '../paged.js';
import { navigate } from '../router.js';
import type { Role } from '../types.js';

/** The badge of the role that makes the console's administrators, wherever the role is shown. */
export function AdministratorMark() {
  return <span class="badge note">Console administrators</span>;
}

function CreateRole({ api, onCancel }: PageProps & { onCancel: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await api<Role>('POST', '/roles', { name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) });
      navigate(`/admin/roles/${encodeURIComponent(created.id)}`);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-role-title">
      <h2 id="create-role-title">Create role</h2>
      <label for="role-name">Name</label>
      <input id="role-name" required maxLength={50} value={name} onInput={(event) => setName(event.currentTarget.value)} />
      <label for="role-description">Description</label>
      <input id="role-description" maxLength={140} value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
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

export function Roles(props: PageProps) {
  const { list, error, page, setPage } = usePaged<'roles', Role>(props.api, '/roles', 'roles');
  const [creating, setCreating] = useState(false);

  return (
    <section>
      <div class="title-row">
        <h1 tabIndex={-1}>Roles</h1>
        {!creating ? (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            Create role
          </button>
        ) : null}
      </div>
      <p class="muted">A role is a set of permissions (scopes of your APIs): users who hold it get them in their access tokens when the API enforces RBAC.</p>
      {creating ? <CreateRole {...props} onCancel={() => setCreating(false)} /> : null}
      <ErrorNote error={error} />
      {list ? (
        <>
          <table>
            <caption class="visually-hidden">Roles</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {list.roles.map((role) => (
                <tr key={role.id}>
                  <td>
                    <a href={`/admin/roles/${encodeURIComponent(role.id)}`}>{role.name}</a>
                    {role.name === props.settings.administratorRole ? <AdministratorMark /> : null}
                  </td>
                  <td>{role.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} perPage={PER_PAGE} total={list.total} label="Roles" onPage={setPage} />
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}
