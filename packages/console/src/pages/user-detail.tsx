import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ConfirmDialog, ErrorNote } from '../components.js';
import { navigate } from '../router.js';
import type { User } from '../types.js';

const PROFILE_FIELDS = ['user_id', 'email', 'email_verified', 'name', 'nickname', 'created_at', 'last_login', 'logins_count'] as const;

export function UserDetail({ api, id }: PageProps & { id: string }) {
  const [user, setUser] = useState<User | undefined>();
  const [error, setError] = useState<unknown>();
  const [confirming, setConfirming] = useState<'delete' | 'block' | undefined>();
  const [status, setStatus] = useState('');
  const path = `/users/${encodeURIComponent(id)}`;

  useEffect(() => {
    api<User>('GET', path).then(setUser, setError);
  }, [api, path]);

  async function setBlocked(blocked: boolean) {
    setConfirming(undefined);
    setError(undefined);
    try {
      setUser(await api<User>('PATCH', path, { blocked }));
      setStatus(blocked ? 'The user is blocked: they cannot sign in.' : 'The user is unblocked.');
    } catch (caught) {
      setError(caught);
    }
  }

  async function remove() {
    setConfirming(undefined);
    try {
      await api('DELETE', path);
      navigate('/admin/users');
    } catch (caught) {
      setError(caught);
    }
  }

  const label = user?.email ?? user?.name ?? id;
  return (
    <section>
      <p>
        <a href="/admin/users">← Users</a>
      </p>
      <h1 tabIndex={-1}>
        {label}
        {user?.blocked ? <span class="badge">Blocked</span> : null}
      </h1>
      <ErrorNote error={error} />
      {status ? <p role="status">{status}</p> : null}
      {user ? (
        <>
          <div class="actions">
            {user.blocked ? (
              <button type="button" onClick={() => void setBlocked(false)}>
                Unblock
              </button>
            ) : (
              <button type="button" onClick={() => setConfirming('block')}>
                Block
              </button>
            )}
            <button type="button" class="danger" onClick={() => setConfirming('delete')}>
              Delete user
            </button>
          </div>
          <div class="card">
            <h2>Profile</h2>
            <dl>
              {PROFILE_FIELDS.filter((field) => user[field] !== undefined).map((field) => (
                <div key={field} class="field">
                  <dt>{field}</dt>
                  <dd>{String(user[field])}</dd>
                </div>
              ))}
              <div class="field">
                <dt>connection</dt>
                <dd>{user.identities?.map((identity) => identity.connection).join(', ')}</dd>
              </div>
            </dl>
          </div>
          <div class="card">
            <h2>Metadata</h2>
            <h3>user_metadata</h3>
            <pre tabIndex={0} aria-label="user_metadata as JSON">{JSON.stringify(user.user_metadata ?? {}, null, 2)}</pre>
            <h3>app_metadata</h3>
            <pre tabIndex={0} aria-label="app_metadata as JSON">{JSON.stringify(user.app_metadata ?? {}, null, 2)}</pre>
          </div>
          <details class="card">
            <summary>Raw JSON</summary>
            <pre tabIndex={0}>{JSON.stringify(user, null, 2)}</pre>
          </details>
          {confirming === 'block' ? (
            <ConfirmDialog title={`Block ${label}?`} confirmLabel="Block" onConfirm={() => void setBlocked(true)} onCancel={() => setConfirming(undefined)}>
              <p>They cannot sign in until they are unblocked.</p>
            </ConfirmDialog>
          ) : null}
          {confirming === 'delete' ? (
            <ConfirmDialog title={`Delete ${label}?`} confirmLabel="Delete" onConfirm={() => void remove()} onCancel={() => setConfirming(undefined)}>
              <p>The account and its metadata are removed for good.</p>
            </ConfirmDialog>
          ) : null}
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}
