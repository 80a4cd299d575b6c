import { useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import type { Permission, ResourceServer } from '../../api-types.js';
import { ConfirmDialog, ErrorNote, Pager } from '../../components.js';

const PER_PAGE = 25;

/**
 * An API's permissions come in one document (up to 500), so they are filtered and paged here; the Management
 * API alone has about two hundred.
 */
export function PermissionsTable({ permissions, onRemove }: { permissions: Permission[]; onRemove?: (permission: Permission) => void }) {
  const [filter, setFilter] = useState('');
  const [page, setPage] = useState(0);
  if (permissions.length === 0) return <p>No permissions yet.</p>;
  const needle = filter.trim().toLowerCase();
  const matching = needle ? permissions.filter((permission) => `${permission.value} ${permission.description ?? ''}`.toLowerCase().includes(needle)) : permissions;
  const last = Math.max(0, Math.ceil(matching.length / PER_PAGE) - 1);
  const shown = Math.min(page, last);
  return (
    <>
      {permissions.length > PER_PAGE ? (
        <div class="search">
          <label for="permission-filter">Filter permissions</label>
          <input
            id="permission-filter"
            type="search"
            value={filter}
            onInput={(event) => {
              setFilter(event.currentTarget.value);
              setPage(0);
            }}
          />
        </div>
      ) : null}
      <table>
        <caption class="visually-hidden">Permissions</caption>
        <thead>
          <tr>
            <th scope="col">Permission</th>
            <th scope="col">Description</th>
            {onRemove ? (
              <th scope="col" class="row-actions">
                <span class="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {matching.slice(shown * PER_PAGE, (shown + 1) * PER_PAGE).map((permission) => (
            <tr key={permission.value}>
              <td>
                <code>{permission.value}</code>
              </td>
              <td>{permission.description}</td>
              {onRemove ? (
                <td class="row-actions">
                  <button type="button" class="danger" aria-label={`Remove ${permission.value}`} onClick={() => onRemove(permission)}>
                    Remove
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      {matching.length > PER_PAGE ? <Pager page={shown} perPage={PER_PAGE} total={matching.length} label="Permissions" onPage={setPage} /> : null}
      {matching.length === 0 ? <p>No permission matches.</p> : null}
    </>
  );
}

/**
 * The API's permissions (its scopes). The API stores them as one list, so adding or removing one saves the whole
 * list; a removed permission is also taken from every role and user that held it, hence the confirmation.
 */
export function Permissions({ api, server, onSaved }: { api: Api; server: ResourceServer; onSaved: (server: ResourceServer) => void }) {
  const [value, setValue] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>();
  const [removing, setRemoving] = useState<Permission | undefined>();
  const [status, setStatus] = useState('');

  async function save(scopes: Permission[], done: string) {
    setError(undefined);
    setStatus('');
    try {
      onSaved(await api<ResourceServer>('PATCH', `/resource-servers/${encodeURIComponent(server.id)}`, { scopes }));
      setStatus(done);
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    }
  }

  async function add(event: Event) {
    event.preventDefault();
    const permission = value.trim();
    if (server.scopes.some((scope) => scope.value === permission)) {
      setError(new Error(`The API already has the permission ${permission}.`));
      return;
    }
    const text = description.trim();
    if (await save([...server.scopes, { value: permission, ...(text ? { description: text } : {}) }], `Added ${permission}.`)) {
      setValue('');
      setDescription('');
    }
  }

  async function remove(permission: Permission) {
    setRemoving(undefined);
    await save(
      server.scopes.filter((scope) => scope.value !== permission.value),
      `Removed ${permission.value}.`,
    );
  }

  return (
    <div class="card" id="permissions">
      <h2>Permissions</h2>
      <p class="muted">The scopes applications and users may be granted for this API, such as <code>read:orders</code>.</p>
      <form class="row-form" onSubmit={add} aria-label="Add a permission">
        <div>
          <label for="permission-value">Permission</label>
          <input id="permission-value" required maxLength={280} pattern="\S+" title="A permission has no spaces." value={value} onInput={(event) => setValue(event.currentTarget.value)} />
        </div>
        <div>
          <label for="permission-description">Description</label>
          <input id="permission-description" maxLength={500} value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
        </div>
        <button type="submit">Add permission</button>
      </form>
      <ErrorNote error={error} />
      {status ? <p role="status">{status}</p> : null}
      <PermissionsTable permissions={server.scopes} onRemove={setRemoving} />
      {removing ? (
        <ConfirmDialog title={`Remove ${removing.value}?`} confirmLabel="Remove" onConfirm={() => void remove(removing)} onCancel={() => setRemoving(undefined)}>
          <p>Roles and users holding this permission lose it, and applications can no longer be granted it.</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
