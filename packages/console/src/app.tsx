import type { Api } from './api.js';
import type { Session } from './auth.js';
import { interceptLinks, usePath } from './router.js';
import type { ConsoleSettings } from './settings.js';
import { GetStarted } from './pages/get-started.js';
import { Applications } from './pages/applications.js';
import { ApplicationDetail } from './pages/application-detail.js';
import { Users } from './pages/users.js';
import { UserDetail } from './pages/user-detail.js';
import { Authentication } from './pages/connections/connections.js';
import { Security } from './pages/security/index.js';
import { Monitoring } from './pages/monitoring/index.js';
import { BrandingArea, SettingsArea } from './pages/sections.js';
import { Roles } from './pages/roles.js';
import { RoleDetail } from './pages/role-detail.js';
import { Organizations } from './pages/organizations.js';
import { OrganizationDetail } from './pages/organization-detail.js';
import { ActionsArea } from './pages/actions/area.js';
import { Apis } from './pages/apis.js';
import { ApiDetail } from './pages/api-detail.js';

const AREAS = [
  { path: '/admin/', label: 'Get started' },
  { path: '/admin/applications', label: 'Applications' },
  { path: '/admin/apis', label: 'APIs' },
  { path: '/admin/authentication', label: 'Authentication' },
  { path: '/admin/users', label: 'Users' },
  { path: '/admin/roles', label: 'Roles' },
  { path: '/admin/organizations', label: 'Organizations' },
  { path: '/admin/actions', label: 'Actions' },
  { path: '/admin/branding', label: 'Branding' },
  { path: '/admin/security', label: 'Security' },
  { path: '/admin/monitoring', label: 'Monitoring' },
  { path: '/admin/settings', label: 'Settings' },
] as const;

export interface PageProps {
  api: Api;
  settings: ConsoleSettings;
  /** Who is signed in: the pages warn before an administrator takes the console away from themselves. */
  session: Session;
}

// A detail page is keyed by its id: going from one role or organization to another starts its lists afresh.
function Page({ path, ...props }: PageProps & { path: string }) {
  const [, area, id, section] = /^\/admin\/([a-z-]+)?\/?([^/]+)?\/?([a-z-]+)?/.exec(path) ?? [];
  if (area === 'applications' && id) return <ApplicationDetail {...props} id={decodeURIComponent(id)} />;
  if (area === 'applications') return <Applications {...props} />;
  if (area === 'apis' && id) return <ApiDetail {...props} id={decodeURIComponent(id)} />;
  if (area === 'apis') return <Apis {...props} />;
  if (area === 'users' && id) return <UserDetail {...props} id={decodeURIComponent(id)} section={section ?? ''} />;
  if (area === 'users') return <Users {...props} />;
  if (area === 'authentication') return <Authentication {...props} path={path} />;
  if (area === 'security') return <Security {...props} path={path} />;
  if (area === 'monitoring') return <Monitoring {...props} path={path} />;
  if (area === 'branding') return <BrandingArea {...props} path={path} />;
  if (area === 'settings') return <SettingsArea {...props} path={path} />;
  if (area === 'roles' && id) return <RoleDetail key={id} {...props} id={decodeURIComponent(id)} />;
  if (area === 'roles') return <Roles {...props} />;
  if (area === 'organizations' && id) return <OrganizationDetail key={id} {...props} id={decodeURIComponent(id)} />;
  if (area === 'organizations') return <Organizations {...props} />;
  if (area === 'actions') return <ActionsArea {...props} path={path} />;
  return <GetStarted {...props} />;
}

export function App(props: PageProps & { onSignOut: () => void }) {
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
        <Page path={path} api={props.api} settings={props.settings} session={props.session} />
      </main>
    </div>
  );
}
