import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.js';
import { ErrorNote } from './components.js';
import type { ListPage, Role, User } from './types.js';
import { userQuery } from './user-query.js';

const FOUND_USERS = 10;
const LISTED_ROLES = 50;

/** Finds users by e-mail, name or id (the Users search, a few at a time) and hands the one chosen to `onPick`. */
export function UserPicker(props: { api: Api; id: string; label: string; action: string; onPick: (user: User) => Promise<void> }) {
  const [text, setText] = useState('');
  const [found, setFound] = useState<User[] | undefined>();
  const [error, setError] = useState<unknown>();

  async function search(event: Event) {
    event.preventDefault();
    setError(undefined);
    const q = userQuery(text);
    if (!q) return;
    const query = new URLSearchParams({ q, search_engine: 'v3', per_page: String(FOUND_USERS), fields: 'user_id,email,name' });
    try {
      setFound(await props.api<User[]>('GET', `/users?${query.toString()}`));
    } catch (caught) {
      setFound(undefined);
      setError(caught);
    }
  }

  async function pick(user: User) {
    setError(undefined);
    try {
      await props.onPick(user);
      const rest = found?.filter((other) => other.user_id !== user.user_id);
      // Once every match is taken, the list goes rather than saying that nothing matches.
      setFound(rest?.length ? rest : undefined);
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <form role="search" class="search picker" onSubmit={search}>
      <label for={props.id}>{props.label}</label>
      <div class="row">
        <input id={props.id} type="search" aria-describedby={`${props.id}-hint`} value={text} onInput={(event) => setText(event.currentTarget.value)} />
        <button type="submit">Search</button>
      </div>
      <small id={`${props.id}-hint`}>The start of an e-mail address or name, or a user id such as auth0|abc123.</small>
      <ErrorNote error={error} />
      {found && found.length > 0 ? (
        <ul class="picks" aria-label="Users found">
          {found.map((user) => (
            <li key={user.user_id}>
              <span>
                {user.email ?? user.name ?? user.user_id} <code>{user.user_id}</code>
              </span>
              <button type="button" onClick={() => void pick(user)}>
                {props.action}
                <span class="visually-hidden"> {user.email ?? user.user_id}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : found ? (
        <p role="status">No user matches.</p>
      ) : null}
    </form>
  );
}

/**
 * Chooses one of the tenant's roles: a filter the server applies (`name_filter`) and the first roles it matches,
 * so that a tenant with many roles is never loaded whole.
 */
export function RolePicker(props: { api: Api; id: string; label: string; filterLabel: string; action: string; onPick: (role: Role) => Promise<void> | void }) {
  const [filter, setFilter] = useState('');
  const [roles, setRoles] = useState<ListPage<'roles', Role> | undefined>();
  const [chosen, setChosen] = useState('');
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    let current = true;
    // Typing waits a moment, so that a word is one request rather than one per letter.
    const timer = setTimeout(() => {
      const query = new URLSearchParams({ include_totals: 'true', per_page: String(LISTED_ROLES), ...(filter.trim() ? { name_filter: filter.trim() } : {}) });
      props.api<ListPage<'roles', Role>>('GET', `/roles?${query.toString()}`).then(
        (loaded) => {
          if (!current) return;
          setRoles(loaded);
          setChosen((before) => (loaded.roles.some((role) => role.id === before) ? before : (loaded.roles[0]?.id ?? '')));
        },
        (caught: unknown) => current && setError(caught),
      );
    }, 250);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [props.api, filter]);

  async function pick() {
    const role = roles?.roles.find((candidate) => candidate.id === chosen);
    if (!role) return;
    setError(undefined);
    try {
      await props.onPick(role);
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <div class="picker">
      <label for={`${props.id}-filter`}>{props.filterLabel}</label>
      <input
        id={`${props.id}-filter`}
        type="search"
        value={filter}
        onInput={(event) => setFilter(event.currentTarget.value)}
        // The filter applies as one types: Enter must not submit a form the picker sits in.
        onKeyDown={(event) => event.key === 'Enter' && event.preventDefault()}
      />
      <label for={props.id}>{props.label}</label>
      <div class="row">
        <select id={props.id} value={chosen} onChange={(event) => setChosen(event.currentTarget.value)}>
          {roles?.roles.map((role) => (
            <option key={role.id} value={role.id}>
              {role.name}
            </option>
          ))}
        </select>
        <button type="button" disabled={!chosen} onClick={() => void pick()}>
          {props.action}
        </button>
      </div>
      {roles && roles.total > roles.roles.length ? (
        <small>
          The first {roles.roles.length} of {roles.total} roles are listed: filter by name to find another.
        </small>
      ) : roles?.total === 0 ? (
        <small>No role matches.</small>
      ) : null}
      <ErrorNote error={error} />
    </div>
  );
}
