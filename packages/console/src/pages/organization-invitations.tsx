import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { ConfirmDialog, ErrorNote, Pager } from '../components.js';
import { PER_PAGE, usePaged } from '../paged.js';
import { RolePicker } from '../pickers.js';
import type { Client, EnabledConnection, Invitation, ListPage, Organization, Role } from '../types.js';

const LISTED = 100;
const DAY_SECONDS = 86_400;

type Inviting = Client & { initiate_login_uri?: string };

function InviteForm({ api, path, organization, onInvited, onCancel }: { api: Api; path: string; organization: Organization; onInvited: (invitation: Invitation) => void; onCancel: () => void }) {
  const [clients, setClients] = useState<Inviting[]>([]);
  const [connections, setConnections] = useState<EnabledConnection[]>([]);
  const [inviter, setInviter] = useState('');
  const [invitee, setInvitee] = useState('');
  const [clientId, setClientId] = useState('');
  const [connectionId, setConnectionId] = useState('');
  const [roles, setRoles] = useState<Role[]>([]);
  const [days, setDays] = useState(7);
  const [send, setSend] = useState(true);
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    api<ListPage<'clients', Inviting>>('GET', `/clients?include_totals=true&per_page=${LISTED}&fields=client_id,name,initiate_login_uri`).then((loaded) => {
      setClients(loaded.clients);
      setClientId(loaded.clients.find((client) => client.initiate_login_uri)?.client_id ?? loaded.clients[0]?.client_id ?? '');
    }, setError);
    api<ListPage<'enabled_connections', EnabledConnection>>('GET', `/organizations/${encodeURIComponent(organization.id)}/enabled_connections?include_totals=true&per_page=${LISTED}`).then(
      (loaded) => setConnections(loaded.enabled_connections),
      setError,
    );
  }, [api, organization.id]);

  async function submit(event: Event) {
    event.preventDefault();
    setError(undefined);
    try {
      const invitation = await api<Invitation>('POST', path, {
        inviter: { name: inviter.trim() },
        invitee: { email: invitee.trim() },
        client_id: clientId,
        ...(connectionId ? { connection_id: connectionId } : {}),
        ...(roles.length > 0 ? { roles: roles.map((role) => role.id) } : {}),
        ttl_sec: days * DAY_SECONDS,
        send_invitation_email: send,
      });
      onInvited(invitation);
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <form class="picker" onSubmit={submit} aria-labelledby="invite-title">
      <h3 id="invite-title">Invite someone</h3>
      <label for="invitation-inviter">Inviter’s name</label>
      <input id="invitation-inviter" required maxLength={300} aria-describedby="invitation-inviter-hint" value={inviter} onInput={(event) => setInviter(event.currentTarget.value)} />
      <small id="invitation-inviter-hint">The e-mail says who invites them.</small>
      <label for="invitation-invitee">Invitee’s e-mail address</label>
      <input id="invitation-invitee" type="email" required value={invitee} onInput={(event) => setInvitee(event.currentTarget.value)} />
      <label for="invitation-client">Application</label>
      <select id="invitation-client" aria-describedby="invitation-client-hint" value={clientId} onChange={(event) => setClientId(event.currentTarget.value)}>
        {clients.map((client) => (
          <option key={client.client_id} value={client.client_id}>
            {client.name}
            {client.initiate_login_uri ? '' : ' (no login URI)'}
          </option>
        ))}
      </select>
      <small id="invitation-client-hint">The link opens the application’s initiate login URI, which starts the login with the invitation.</small>
      <label for="invitation-connection">Connection to log in with</label>
      <select id="invitation-connection" value={connectionId} onChange={(event) => setConnectionId(event.currentTarget.value)}>
        <option value="">Any the organization has enabled</option>
        {connections.map((enabled) => (
          <option key={enabled.connection_id} value={enabled.connection_id}>
            {enabled.connection.name}
          </option>
        ))}
      </select>
      <fieldset>
        <legend>Roles they get in the organization</legend>
        {roles.length > 0 ? (
          <ul class="picks">
            {roles.map((role) => (
              <li key={role.id}>
                <span>{role.name}</span>
                <button type="button" onClick={() => setRoles(roles.filter((other) => other.id !== role.id))}>
                  Remove<span class="visually-hidden"> role {role.name}</span>
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">None.</p>
        )}
        <RolePicker api={api} id="invitation-role" label="Role" filterLabel="Find a role by name" action="Add role" onPick={(role) => setRoles(roles.some((other) => other.id === role.id) ? roles : [...roles, role])} />
      </fieldset>
      <label for="invitation-days">Valid for (days)</label>
      <input id="invitation-days" type="number" min={1} max={30} required value={days} onInput={(event) => setDays(Number(event.currentTarget.value))} />
      <label class="check">
        <input type="checkbox" checked={send} onChange={(event) => setSend(event.currentTarget.checked)} />
        Send the invitation e-mail
      </label>
      <ErrorNote error={error} />
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary">
          Send invitation
        </button>
      </div>
    </form>
  );
}

/** An organization's pending invitations (paged by the server): new ones, and revoking them. */
export function OrganizationInvitations({ api, organization }: { api: Api; organization: Organization }) {
  const path = `/organizations/${encodeURIComponent(organization.id)}/invitations`;
  const { list, error, page, setPage, reload } = usePaged<'invitations', Invitation>(api, path, 'invitations');
  const [inviting, setInviting] = useState(false);
  const [sent, setSent] = useState<Invitation | undefined>();
  const [revoking, setRevoking] = useState<Invitation | undefined>();
  const [changeError, setChangeError] = useState<unknown>();

  async function revoke(invitation: Invitation) {
    setRevoking(undefined);
    setChangeError(undefined);
    try {
      await api('DELETE', `${path}/${encodeURIComponent(invitation.id)}`);
      reload();
    } catch (caught) {
      setChangeError(caught);
    }
  }

  return (
    <div class="card">
      <div class="title-row">
        <h2>Invitations</h2>
        {!inviting ? (
          <button type="button" onClick={() => setInviting(true)}>
            Invite someone
          </button>
        ) : null}
      </div>
      {sent ? (
        <p role="status">
          {sent.invitee.email} is invited until {new Date(sent.expires_at).toLocaleString()}. Their link: <code class="long">{sent.invitation_url}</code>
        </p>
      ) : null}
      {inviting ? (
        <InviteForm
          api={api}
          path={path}
          organization={organization}
          onCancel={() => setInviting(false)}
          onInvited={(invitation) => {
            setSent(invitation);
            setInviting(false);
            reload();
          }}
        />
      ) : null}
      <ErrorNote error={error ?? changeError} />
      {list ? (
        list.total === 0 ? (
          <p>No pending invitation.</p>
        ) : (
          <>
            <table>
              <caption class="visually-hidden">Invitations to {organization.display_name ?? organization.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Invitee</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Inviter</th>
                  <th scope="col" class="act">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.invitations.map((invitation) => (
                  <tr key={invitation.id}>
                    <td>{invitation.invitee.email}</td>
                    <td>{new Date(invitation.expires_at).toLocaleString()}</td>
                    <td>{invitation.inviter.name}</td>
                    <td class="act">
                      <button type="button" class="danger" onClick={() => setRevoking(invitation)}>
                        Revoke<span class="visually-hidden"> the invitation of {invitation.invitee.email}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager page={page} perPage={PER_PAGE} total={list.total} label="Invitations" onPage={setPage} />
          </>
        )
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
      {revoking ? (
        <ConfirmDialog title={`Revoke the invitation of ${revoking.invitee.email}?`} confirmLabel="Revoke" onConfirm={() => void revoke(revoking)} onCancel={() => setRevoking(undefined)}>
          <p>Its link stops working at once.</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
