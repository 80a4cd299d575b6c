import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ConfirmDialog, ErrorNote } from '../components.js';
import { navigate } from '../router.js';
import type { Organization } from '../types.js';
import { OrganizationConnections } from './organization-connections.js';
import { OrganizationInvitations } from './organization-invitations.js';
import { OrganizationMembers } from './organization-members.js';
import { OrganizationSettings } from './organization-settings.js';

export function OrganizationDetail({ api, id }: PageProps & { id: string }) {
  const [organization, setOrganization] = useState<Organization | undefined>();
  const [error, setError] = useState<unknown>();
  const [confirming, setConfirming] = useState(false);
  const path = `/organizations/${encodeURIComponent(id)}`;

  useEffect(() => {
    api<Organization>('GET', path).then(setOrganization, setError);
  }, [api, path]);

  async function remove() {
    setConfirming(false);
    try {
      await api('DELETE', path);
      navigate('/admin/organizations');
    } catch (caught) {
      setError(caught);
    }
  }

  const title = organization?.display_name ?? organization?.name ?? 'Organization';
  return (
    <section>
      <p>
        <a href="/admin/organizations">← Organizations</a>
      </p>
      <h1 tabIndex={-1}>{title}</h1>
      {organization ? (
        <p class="muted">
          <code>{organization.name}</code> · <code>{organization.id}</code>
        </p>
      ) : null}
      <ErrorNote error={error} />
      {organization ? (
        <>
          <OrganizationSettings api={api} organization={organization} onSaved={setOrganization} />
          <OrganizationMembers api={api} organization={organization} />
          <OrganizationInvitations api={api} organization={organization} />
          <OrganizationConnections api={api} organization={organization} />
          <div class="card danger-zone">
            <h2>Delete this organization</h2>
            <p>Its memberships, members’ roles in it, invitations and enabled connections go with it; the users and connections stay.</p>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Delete organization
            </button>
          </div>
          {confirming ? (
            <ConfirmDialog title={`Delete ${title}?`} confirmLabel="Delete" onConfirm={() => void remove()} onCancel={() => setConfirming(false)}>
              <p>This cannot be undone. Applications that log users in to it by its name or id are refused from then on.</p>
            </ConfirmDialog>
          ) : null}
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}
