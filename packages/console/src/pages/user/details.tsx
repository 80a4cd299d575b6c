import { useState } from 'preact/hooks';
import { ConfirmDialog, ErrorNote, StatusNote, when } from '../../components.js';
import { useAction } from '../../hooks.js';
import { navigate } from '../../router.js';
import type { Job, User } from '../../types.js';
import type { UserSectionProps } from '../user-detail.js';
import { MetadataEditor } from './metadata.js';

const PROFILE_FIELDS = ['user_id', 'email', 'email_verified', 'name', 'nickname', 'created_at', 'last_login', 'logins_count'] as const;
const DATES = new Set<string>(['created_at', 'last_login']);

/** A password-change link: shown once, since Latchkey keeps only its hash. */
function TicketLink({ ticket }: { ticket: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="card">
      <h2>Password-change link</h2>
      <label for="ticket-link">Link for the user</label>
      <div class="row">
        <input id="ticket-link" readOnly value={ticket} aria-describedby="ticket-hint" onFocus={(event) => event.currentTarget.select()} />
        <button type="button" onClick={() => void navigator.clipboard.writeText(ticket).then(() => setCopied(true))}>
          Copy
        </button>
      </div>
      <small id="ticket-hint">Send it to the user now: it is shown only once, and works once, for five days.</small>
      <StatusNote status={copied ? 'Copied.' : ''} />
    </div>
  );
}

/** The profile, what administrators do to the account (verify, reset, block, delete), and its metadata. */
export function UserDetails(props: UserSectionProps) {
  const { api, user, userPath, onUser } = props;
  const action = useAction();
  const [confirming, setConfirming] = useState<'delete' | 'block' | undefined>();
  const [ticket, setTicket] = useState<string | undefined>();
  const label = user.email ?? user.name ?? user.user_id;

  const setBlocked = (blocked: boolean) => {
    setConfirming(undefined);
    void action.run(async () => {
      onUser(await api<User>('PATCH', userPath, { blocked }));
      return blocked ? 'The user is blocked: they cannot sign in.' : 'The user is unblocked.';
    });
  };
  const sendVerification = () =>
    void action.run(async () => {
      await api<Job>('POST', '/jobs/verification-email', { user_id: user.user_id });
      return `A verification e-mail is on its way to ${user.email ?? 'the user'}.`;
    });
  const createTicket = () =>
    void action.run(async () => {
      setTicket((await api<{ ticket: string }>('POST', '/tickets/password-change', { user_id: user.user_id })).ticket);
      return 'A password-change link was created.';
    });
  const remove = () => {
    setConfirming(undefined);
    void action.run(async () => {
      await api('DELETE', userPath);
      navigate('/admin/users');
    });
  };

  return (
    <>
      <div class="actions">
        {user.blocked ? (
          <button type="button" disabled={action.busy} onClick={() => setBlocked(false)}>
            Unblock
          </button>
        ) : (
          <button type="button" disabled={action.busy} onClick={() => setConfirming('block')}>
            Block
          </button>
        )}
        <button type="button" disabled={action.busy || !user.email} onClick={sendVerification}>
          Send verification e-mail
        </button>
        <button type="button" disabled={action.busy} onClick={createTicket}>
          Create password-change link
        </button>
        <button type="button" class="danger" disabled={action.busy} onClick={() => setConfirming('delete')}>
          Delete user
        </button>
      </div>
      <ErrorNote error={action.error} />
      <StatusNote status={action.status} />
      {ticket ? <TicketLink ticket={ticket} /> : null}
      <div class="card">
        <h2>Profile</h2>
        <dl>
          {PROFILE_FIELDS.filter((field) => user[field] !== undefined).map((field) => (
            <div key={field} class="field">
              <dt>{field}</dt>
              <dd>{DATES.has(field) ? when(String(user[field])) : String(user[field])}</dd>
            </div>
          ))}
          <div class="field">
            <dt>connection</dt>
            <dd>{user.identities?.map((identity) => identity.connection).join(', ')}</dd>
          </div>
        </dl>
      </div>
      <MetadataEditor {...props} />
      <details class="card">
        <summary>Raw JSON</summary>
        <pre tabIndex={0}>{JSON.stringify(user, null, 2)}</pre>
      </details>
      {confirming === 'block' ? (
        <ConfirmDialog title={`Block ${label}?`} confirmLabel="Block" onConfirm={() => setBlocked(true)} onCancel={() => setConfirming(undefined)}>
          <p>They cannot sign in until they are unblocked.</p>
        </ConfirmDialog>
      ) : null}
      {confirming === 'delete' ? (
        <ConfirmDialog title={`Delete ${label}?`} confirmLabel="Delete" onConfirm={remove} onCancel={() => setConfirming(undefined)}>
          <p>The account and its metadata are removed for good.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
