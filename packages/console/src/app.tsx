import type { Api } from './api.js';
import type { Session } from './auth.js';
import { interceptLinks, usePath } from './router.js';
import type { ConsoleSettings } from './settings.js';
import { GetStarted } from './pages/get-started.js';
import { Applications } from './pages/applications.js';
import { ApplicationDetail } from './pages/application-detail.js';
import { Users } from './pages/users.js';
import { UserDetail } from './pages/user-detail.js';
import { Apis } from './pages/apis.js';
import { ApiDetail } from './pages/api-detail.js';

const AREAS = [
  { path: '/admin/', label: 'Get started' },
  { path: '/admin/applications', label: 'Applications' },
  { path: '/admin/apis', label: 'APIs' },
  { path: '/admin/users', label: 'Users' },
] as const;

export interface PageProps {
  api: Api;
  settings: ConsoleSettings;
}

function Page({ path, ...props }: PageProps & { path: string }) {
  const [, area, id] = /^\/admin\/([a-z-]+)?\/?([^/]+)?/.exec(path) ?? [];
  if (area === 'applications' && id) return <ApplicationDetail {...props} id={decodeURIComponent(id)} />;
  if (area === 'applications') return <Applications {...props} />;
  if (area === 'apis' && id) return <ApiDetail {...props} id={decodeURIComponent(id)} />;
  if (area === 'apis') return <Apis {...props} />;
  if (area === 'users' && id) return <UserDetail {...props} id={decodeURIComponent(id)} />;
  if (area === 'users') return <Users {...props} />;
  return <GetStarted {...props} />;
}

export function App(props: PageProps & { session: Session; onSignOut: () => void }) {
  const path = usePath();
  const current = AREAS.find((area) => (area.path === '/admin/' ? path === '/admin/' : path.startsWith(area.path)));
  return (
    <div class="layout" onClick={interceptLinks}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <span class="brand">Latchkey Console</span>
        <nav aria-label="Areas">
          <ul>
            {AREAS.map((area) => (
              <li key={area.path}>
                <a href={area.path} aria-current={area === current ? 'page' : undefined}>
                  {area.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="account">
          <span>{props.session.email}</span>
          <button type="button" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        <Page path={path} api={props.api} settings={props.settings} />
      </main>
    </div>
  );
}
