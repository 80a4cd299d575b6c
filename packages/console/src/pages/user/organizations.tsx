import { useState } from 'preact/hooks';
import { ConfirmDialog, ErrorNote, Pager, StatusNote } from '../../components.js';
import { useAction, useLoaded } from '../../hooks.js';
import type { ListPage, Organization } from '../../types.js';
import type { UserSectionProps } from '../user-detail.js';

const PER_PAGE = 10;

/** The organizations the user is a member of; leaving one takes the member's roles there with it. */
export function UserOrganizations({ api, user, userPath }: UserSectionProps) {
  const [page, setPage] = useState(0);
  const list = useLoaded(() => api<ListPage<'organizations', Organization>>('GET', `${userPath}/organizations?include_totals=true&page=${page}&per_page=${PER_PAGE}`), [api, userPath, page]);
  const [removing, setRemoving] = useState<Organization | undefined>();
  const action = useAction();
  const named = (organization: Organization) => organization.display_name ?? organization.name;

  function remove(organization: Organization) {
    setRemoving(undefined);
    void action.run(async () => {
      await api('DELETE', `/organizations/${encodeURIComponent(organization.id)}/members`, { members: [user.user_id] });
      list.reload();
      return `The user is no longer a member of ${named(organization)}.`;
    });
  }

  return (
    <>
      <ErrorNote error={list.error ?? action.error} />
      <StatusNote status={action.status} />
      {list.data ? (
        <>
          <table>
            <caption class="visually-hidden">Organizations of the user</caption>
            <thead>
              <tr>
                <th scope="col">Organization</th>
                <th scope="col">Name</th>
                <th scope="col" class="act">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.organizations.map((organization) => (
                <tr key={organization.id}>
                  <td>{named(organization)}</td>
                  <td>
                    <code>{organization.name}</code>
                  </td>
                  <td class="act">
                    <button type="button" class="danger" disabled={action.busy} onClick={() => setRemoving(organization)}>
                      Remove from <span class="visually-hidden">{named(organization)}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.organizations.length === 0 ? (
            <p>The user belongs to no organization.</p>
          ) : (
            <Pager page={page} perPage={PER_PAGE} total={list.data.total} label="Organizations" onPage={setPage} />
          )}
        </>
      ) : !list.error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
      {removing ? (
        <ConfirmDialog title={`Remove the user from ${named(removing)}?`} confirmLabel="Remove" onConfirm={() => remove(removing)} onCancel={() => setRemoving(undefined)}>
          <p>They stop being a member, and lose the roles they had in it.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
