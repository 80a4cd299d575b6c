import { useEffect, useState } from 'preact/hooks';
import type { FunctionComponent } from 'preact';
import type { PageProps } from '../app.js';
import { ErrorNote } from '../components.js';
import type { User } from '../types.js';
import { UserDetails } from './user/details.js';
import { UserIdentities } from './user/identities.js';
import { UserRoles } from './user/roles.js';
import { UserOrganizations } from './user/organizations.js';
import { UserMfa } from './user/mfa.js';
import { UserSessions } from './user/sessions.js';
import { UserLogs } from './user/logs.js';

/** What every section of a user's page gets: the user as loaded, where the API has them, and how to replace them. */
export interface UserSectionProps extends PageProps {
  user: User;
  /** `/users/{id}`, encoded, for the Management API. */
  userPath: string;
  onUser: (user: User) => void;
}

/** The sections of a user's page, each at its own address below the user's (`/admin/users/{id}/roles`). */
const SECTIONS: { path: string; label: string; Section: FunctionComponent<UserSectionProps> }[] = [
  { path: '', label: 'Details', Section: UserDetails },
  { path: 'identities', label: 'Identities', Section: UserIdentities },
  { path: 'roles', label: 'Roles and permissions', Section: UserRoles },
  { path: 'organizations', label: 'Organizations', Section: UserOrganizations },
  { path: 'mfa', label: 'Multi-factor', Section: UserMfa },
  { path: 'sessions', label: 'Sessions', Section: UserSessions },
  { path: 'logs', label: 'Logs', Section: UserLogs },
];

export function UserDetail(props: PageProps & { id: string; section: string }) {
  const { api, id, section } = props;
  const [user, setUser] = useState<User | undefined>();
  const [error, setError] = useState<unknown>();
  const userPath = `/users/${encodeURIComponent(id)}`;
  const base = `/admin/users/${encodeURIComponent(id)}`;

  useEffect(() => {
    setUser(undefined);
    setError(undefined);
    api<User>('GET', userPath).then(setUser, setError);
  }, [api, userPath]);

  const current = SECTIONS.find((entry) => entry.path === section) ?? SECTIONS[0];
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
      <nav class="subnav" aria-label="User sections">
        <ul>
          {SECTIONS.map((entry) => (
            <li key={entry.path}>
              <a href={entry.path ? `${base}/${entry.path}` : base} aria-current={entry === current ? 'page' : undefined}>
                {entry.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <ErrorNote error={error} />
      {user && current ? <current.Section {...props} user={user} userPath={userPath} onUser={setUser} /> : !error ? <p aria-busy="true">Loading…</p> : null}
    </section>
  );
}
