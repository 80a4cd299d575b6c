import { useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ErrorNote } from '../components.js';
import { useAction, useLoaded } from '../hooks.js';
import { navigate } from '../router.js';
import type { Connection, ListPage, User } from '../types.js';

const CHOICES = 50;

/**
 * The tenant's database connections (the first 50) as a select; `onChange` gets the chosen one. The first option
 * chooses none: `anyLabel` (every connection), or else a prompt to choose, which the form then insists on. Nothing is
 * chosen for the administrator, so a choice they made is never replaced.
 */
export function DatabaseConnectionSelect(props: PageProps & { id: string; label: string; value: Connection | undefined; onChange: (connection: Connection | undefined) => void; anyLabel?: string }) {
  const { api, onChange, anyLabel } = props;
  const list = useLoaded(() => api<ListPage<'connections', Connection>>('GET', `/connections?strategy=auth0&include_totals=true&per_page=${CHOICES}&fields=id,name,strategy`), [api]);
  const connections = list.data?.connections ?? [];
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        required={anyLabel === undefined}
        value={props.value?.id ?? ''}
        onChange={(event) => onChange(connections.find((connection) => connection.id === event.currentTarget.value))}
      >
        <option value="">{anyLabel ?? 'Choose a connection'}</option>
        {connections.map((connection) => (
          <option key={connection.id} value={connection.id}>
            {connection.name}
          </option>
        ))}
      </select>
      {list.data && list.data.total > CHOICES ? <small>The first {CHOICES} of {list.data.total} database connections.</small> : null}
      {list.data && connections.length === 0 ? <small>There is no database connection: create one first.</small> : null}
      <ErrorNote error={list.error} />
    </>
  );
}

/** A user with an e-mail address and a password, in a database connection; their page opens once created. */
export function CreateUser(props: PageProps & { onCancel: () => void }) {
  const { api, onCancel } = props;
  const [connection, setConnection] = useState<Connection | undefined>();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();

  async function submit(event: Event) {
    event.preventDefault();
    await action.run(async () => {
      if (!connection) throw new Error('Choose the database connection the user belongs to.');
      const created = await api<User>('POST', '/users', { connection: connection.name, email: email.trim(), password });
      navigate(`/admin/users/${encodeURIComponent(created.user_id)}`);
    });
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-user-title">
      <h2 id="create-user-title">Create user</h2>
      <DatabaseConnectionSelect {...props} id="new-user-connection" label="Connection" value={connection} onChange={setConnection} />
      <label for="new-user-email">E-mail address</label>
      <input id="new-user-email" type="email" required autoComplete="off" value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
      <label for="new-user-password">Password</label>
      <input
        id="new-user-password"
        type="password"
        required
        autoComplete="new-password"
        aria-describedby="new-user-password-hint"
        value={password}
        onInput={(event) => setPassword(event.currentTarget.value)}
      />
      <small id="new-user-password-hint">It must satisfy the connection's password policy; the user can change it later.</small>
      <ErrorNote error={action.error} />
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={action.busy}>
          Create
        </button>
      </div>
    </form>
  );
}
