import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ConfirmDialog, ErrorNote } from '../components.js';
import { navigate } from '../router.js';
import type { Role } from '../types.js';
import { RolePermissions } from './role-permissions.js';
import { AdministratorMark } from './roles.js';
import { RoleUsers } from './role-users.js';

export function RoleDetail(props: PageProps & { id: string }) {
  const { api, id } = props;
  const [role, setRole] = useState<Role | undefined>();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const path = `/roles/${encodeURIComponent(id)}`;

  function show(loaded: Role) {
    setRole(loaded);
    setName(loaded.name);
    setDescription(loaded.description ?? '');
  }

  useEffect(() => {
    api<Role>('GET', path).then(show, setError);
  }, [api, path]);

  async function save(event: Event) {
    event.preventDefault();
    setError(undefined);
    setSaved(false);
    try {
      show(await api<Role>('PATCH', path, { name: name.trim(), description: description.trim() }));
      setSaved(true);
    } catch (caught) {
      setError(caught);
    }
  }

  async function remove() {
    setConfirming(false);
    try {
      await api('DELETE', path);
      navigate('/admin/roles');
    } catch (caught) {
      setError(caught);
    }
  }

  const administrators = role?.name === props.settings.administratorRole;
  return (
    <section>
      <p>
        <a href="/admin/roles">← Roles</a>
      </p>
      <h1 tabIndex={-1}>
        {role?.name ?? 'Role'}
        {administrators ? <AdministratorMark /> : null}
      </h1>
      {administrators ? (
        <p class="note">
          This is the console’s own role: whoever holds it signs in here with every Management API permission. Latchkey gives it back any permission it lacks at
          each start.
        </p>
      ) : null}
      <ErrorNote error={error} />
      {role ? (
        <>
          <form class="card" onSubmit={save} aria-labelledby="role-settings-title">
            <h2 id="role-settings-title">Settings</h2>
            <label for="role-name">Name</label>
            <input id="role-name" required maxLength={50} value={name} onInput={(event) => setName(event.currentTarget.value)} />
            <label for="role-description">Description</label>
            <input id="role-description" maxLength={140} value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
            <div class="actions">
              <button type="submit" class="primary">
                Save changes
              </button>
              {saved ? <span role="status">Saved.</span> : null}
            </div>
          </form>
          <RolePermissions api={api} role={role} />
          <RoleUsers {...props} role={role} administrators={administrators} />
          <div class="card danger-zone">
            <h2>Delete this role</h2>
            <p>Its users lose its permissions; the users themselves stay.</p>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Delete role
            </button>
          </div>
          {confirming ? (
            <ConfirmDialog title={`Delete ${role.name}?`} confirmLabel="Delete" onConfirm={() => void remove()} onCancel={() => setConfirming(false)}>
              {administrators ? (
                <p class="warning">
                  This is the console’s administrator role. Everyone who holds it, you included, loses access to this console at once. Latchkey creates it again, held
                  by no one, at its next start; <code>latchkey admin create</code> on the server then makes a new administrator.
                </p>
              ) : (
                <p>This cannot be undone. Its users lose its permissions from their next token.</p>
              )}
            </ConfirmDialog>
          ) : null}
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}
