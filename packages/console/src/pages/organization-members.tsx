import { useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { ConfirmDialog, ErrorNote, Pager } from '../components.js';
import { PER_PAGE, usePaged } from '../paged.js';
import { RolePicker, UserPicker } from '../pickers.js';
import type { Holder, Organization, Role, User } from '../types.js';

type Removal = { member: Holder; role?: { id: string; name: string } };

const label = (member: Holder) => member.email ?? member.name ?? member.user_id;

/** An organization's members (paged by the server, with their roles in it), added by search or id, removed, given roles. */
export function OrganizationMembers({ api, organization }: { api: Api; organization: Organization }) {
  const base = `/organizations/${encodeURIComponent(organization.id)}/members`;
  const { list, error, page, setPage, reload } = usePaged<'members', Holder>(api, `${base}?fields=user_id,email,name,roles`, 'members');
  const [managing, setManaging] = useState<string | undefined>();
  const [removing, setRemoving] = useState<Removal | undefined>();
  const [changeError, setChangeError] = useState<unknown>();
  const managed = list?.members.find((member) => member.user_id === managing);
  const orgName = organization.display_name ?? organization.name;

  async function add(user: User) {
    await api('POST', base, { members: [user.user_id] });
    reload();
  }

  async function giveRole(member: Holder, role: Role) {
    await api('POST', `${base}/${encodeURIComponent(member.user_id)}/roles`, { roles: [role.id] });
    reload();
  }

  async function remove({ member, role }: Removal) {
    setRemoving(undefined);
    setChangeError(undefined);
    try {
      if (role) await api('DELETE', `${base}/${encodeURIComponent(member.user_id)}/roles`, { roles: [role.id] });
      else await api('DELETE', base, { members: [member.user_id] });
      reload();
    } catch (caught) {
      setChangeError(caught);
    }
  }

  return (
    <div class="card">
      <h2>Members</h2>
      <ErrorNote error={error ?? changeError} />
      {list ? (
        list.total === 0 ? (
          <p>No member yet.</p>
        ) : (
          <>
            <table>
              <caption class="visually-hidden">Members of {orgName}</caption>
              <thead>
                <tr>
                  <th scope="col">Member</th>
                  <th scope="col">Roles in the organization</th>
                  <th scope="col" class="act">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.members.map((member) => (
                  <tr key={member.user_id}>
                    <td>
                      <a href={`/admin/users/${encodeURIComponent(member.user_id)}`}>{label(member)}</a>
                    </td>
                    <td>{member.roles?.length ? member.roles.map((role) => role.name).join(', ') : <span class="muted">None</span>}</td>
                    <td class="act">
                      <div class="row">
                        <button type="button" aria-expanded={managing === member.user_id} onClick={() => setManaging(managing === member.user_id ? undefined : member.user_id)}>
                          Roles<span class="visually-hidden"> of {label(member)}</span>
                        </button>
                        <button type="button" class="danger" onClick={() => setRemoving({ member })}>
                          Remove<span class="visually-hidden"> {label(member)}</span>
                        </button>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager page={page} perPage={PER_PAGE} total={list.total} label="Members" onPage={setPage} />
          </>
        )
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
      {managed ? (
        <section class="picker" aria-labelledby="member-roles-title">
          <h3 id="member-roles-title">
            Roles of {label(managed)} in {orgName}
          </h3>
          {managed.roles?.length ? (
            <ul class="picks">
              {managed.roles.map((role) => (
                <li key={role.id}>
                  <span>{role.name}</span>
                  <button type="button" class="danger" onClick={() => setRemoving({ member: managed, role })}>
                    Remove<span class="visually-hidden"> role {role.name}</span>
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p>No role in this organization.</p>
          )}
          <RolePicker api={api} id="member-role" label="Role to give" filterLabel="Find a role to give by name" action="Give role" onPick={(role) => giveRole(managed, role)} />
        </section>
      ) : null}
      <UserPicker api={api} id="member-search" label="Add a member" action="Add" onPick={add} />
      {removing ? (
        <ConfirmDialog
          title={removing.role ? `Take ${removing.role.name} from ${label(removing.member)}?` : `Remove ${label(removing.member)} from ${orgName}?`}
          confirmLabel="Remove"
          onConfirm={() => void remove(removing)}
          onCancel={() => setRemoving(undefined)}
        >
          <p>{removing.role ? 'They keep the membership, without this role’s permissions in the organization.' : 'Their roles in the organization go too; their account stays.'}</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
