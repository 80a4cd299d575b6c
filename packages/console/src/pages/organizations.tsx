import { useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ErrorNote, Pager } from '../components.js';
import { PER_PAGE, usePaged } from '../paged.js';
import { navigate } from '../router.js';
import type { Organization } from '../types.js';

function CreateOrganization({ api, onCancel }: PageProps & { onCancel: () => void }) {
  const [name, setName] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await api<Organization>('POST', '/organizations', { name: name.trim(), ...(displayName.trim() ? { display_name: displayName.trim() } : {}) });
      navigate(`/admin/organizations/${encodeURIComponent(created.id)}`);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-organization-title">
      <h2 id="create-organization-title">Create organization</h2>
      <label for="organization-name">Name</label>
      <input id="organization-name" required maxLength={50} aria-describedby="organization-name-hint" value={name} onInput={(event) => setName(event.currentTarget.value)} />
      <small id="organization-name-hint">How applications name it (the organization_name parameter): lowercase letters, digits, - and _.</small>
      <label for="organization-display-name">Display name</label>
      <input id="organization-display-name" maxLength={255} aria-describedby="organization-display-name-hint" value={displayName} onInput={(event) => setDisplayName(event.currentTarget.value)} />
      <small id="organization-display-name-hint">What members see on the login pages, e.g. Acme Corporation.</small>
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

export function Organizations(props: PageProps) {
  const { list, error, page, setPage } = usePaged<'organizations', Organization>(props.api, '/organizations', 'organizations');
  const [creating, setCreating] = useState(false);

  return (
    <section>
      <div class="title-row">
        <h1 tabIndex={-1}>Organizations</h1>
        {!creating ? (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            Create organization
          </button>
        ) : null}
      </div>
      <p class="muted">The businesses your applications serve: each with its members, their roles in it, its login connections and its branding.</p>
      {creating ? <CreateOrganization {...props} onCancel={() => setCreating(false)} /> : null}
      <ErrorNote error={error} />
      {list ? (
        <>
          <table>
            <caption class="visually-hidden">Organizations</caption>
            <thead>
              <tr>
                <th scope="col">Display name</th>
                <th scope="col">Name</th>
                <th scope="col">ID</th>
              </tr>
            </thead>
            <tbody>
              {list.organizations.map((organization) => (
                <tr key={organization.id}>
                  <td>
                    <a href={`/admin/organizations/${encodeURIComponent(organization.id)}`}>{organization.display_name ?? organization.name}</a>
                  </td>
                  <td>{organization.name}</td>
                  <td>
                    <code>{organization.id}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.total === 0 ? <p>No organization yet.</p> : null}
          <Pager page={page} perPage={PER_PAGE} total={list.total} label="Organizations" onPage={setPage} />
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}
