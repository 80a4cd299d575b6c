import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ErrorNote, Pager } from '../components.js';
import type { ListPage, User } from '../types.js';
import { userQuery } from '../user-query.js';
import { CreateUser } from './user-create.js';
import { ExportUsers, ImportUsers } from './user-jobs.js';

const PER_PAGE = 25;

type Panel = 'create' | 'import' | 'export';

export function Users(props: PageProps) {
  const { api } = props;
  const [panel, setPanel] = useState<Panel | undefined>();
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(0);
  const [list, setList] = useState<ListPage<'users', User> | undefined>();
  const [error, setError] = useState<unknown>();
  // Bumped when an import finishes, so that the list shows the users it added.
  const [version, setVersion] = useState(0);

  useEffect(() => {
    setError(undefined);
    const q = userQuery(query);
    const search = new URLSearchParams({ include_totals: 'true', page: String(page), per_page: String(PER_PAGE), fields: 'user_id,email,name,blocked,last_login,logins_count,identities' });
    if (q) {
      search.set('q', q);
      search.set('search_engine', 'v3');
    }
    api<ListPage<'users', User>>('GET', `/users?${search.toString()}`).then(setList, (caught: unknown) => {
      setList(undefined);
      setError(caught);
    });
  }, [api, query, page, version]);

  function submit(event: Event) {
    event.preventDefault();
    setPage(0);
    setQuery(text);
  }

  return (
    <section>
      <div class="title-row">
        <h1 tabIndex={-1}>Users</h1>
        <div class="actions">
          <button type="button" class="primary" aria-expanded={panel === 'create'} onClick={() => setPanel(panel === 'create' ? undefined : 'create')}>
            Create user
          </button>
          <button type="button" aria-expanded={panel === 'import'} onClick={() => setPanel(panel === 'import' ? undefined : 'import')}>
            Import users
          </button>
          <button type="button" aria-expanded={panel === 'export'} onClick={() => setPanel(panel === 'export' ? undefined : 'export')}>
            Export users
          </button>
        </div>
      </div>
      {panel === 'create' ? <CreateUser {...props} onCancel={() => setPanel(undefined)} /> : null}
      {panel === 'import' ? <ImportUsers {...props} onClose={() => setPanel(undefined)} onImported={() => setVersion((value) => value + 1)} /> : null}
      {panel === 'export' ? <ExportUsers {...props} onClose={() => setPanel(undefined)} /> : null}
      <form role="search" class="search" onSubmit={submit}>
        <label for="user-search">Search users</label>
        <div class="row">
          <input id="user-search" type="search" aria-describedby="user-search-hint" value={text} onInput={(event) => setText(event.currentTarget.value)} />
          <button type="submit">Search</button>
        </div>
        <small id="user-search-hint">
          A word finds e-mails and names starting with it; or use the query syntax, e.g. <code>email:"jane@example.com"</code>, <code>blocked:true</code>,{' '}
          <code>logins_count:[10 TO *]</code>.
        </small>
      </form>
      <ErrorNote error={error} />
      {list ? (
        <>
          <table>
            <caption class="visually-hidden">Users</caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Connection</th>
                <th scope="col">Logins</th>
                <th scope="col">Last login</th>
              </tr>
            </thead>
            <tbody>
              {list.users.map((user) => (
                <tr key={user.user_id}>
                  <td>
                    <a href={`/admin/users/${encodeURIComponent(user.user_id)}`}>{user.email ?? user.name ?? user.user_id}</a>
                    {user.blocked ? <span class="badge">Blocked</span> : null}
                  </td>
                  <td>{user.identities?.[0]?.connection}</td>
                  <td>{user.logins_count ?? 0}</td>
                  <td>{user.last_login ? new Date(user.last_login).toLocaleString() : 'Never'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.users.length === 0 ? <p>No user matches.</p> : null}
          <Pager page={page} perPage={PER_PAGE} total={list.total} label="Users" onPage={setPage} />
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}
