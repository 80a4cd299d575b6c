import type { PageProps } from '../../app.js';
import { ActionEditor } from './editor.js';
import { Flows } from './flows.js';
import { ActionLibrary } from './library.js';

const SECTIONS = [
  { path: '/admin/actions', label: 'Library' },
  { path: '/admin/actions/flows', label: 'Flows' },
] as const;

/** The Actions area: the library (`/admin/actions`), one action (`/admin/actions/<id>`), and the flows (`/admin/actions/flows/<trigger>`). */
export function ActionsArea(props: PageProps & { path: string }) {
  const [, first, second] = /^\/admin\/actions\/?([^/]+)?\/?([^/]+)?/.exec(props.path) ?? [];
  // Action ids are UUIDs, so "flows" never names one.
  const section = first === 'flows' ? 'flows' : first ? 'action' : 'library';
  if (section === 'action' && first) return <ActionEditor {...props} id={decodeURIComponent(first)} />;
  return (
    <>
      <nav aria-label="Actions" class="subnav">
        <ul>
          {SECTIONS.map((entry) => (
            <li key={entry.path}>
              <a href={entry.path} aria-current={(entry.label === 'Flows') === (section === 'flows') ? 'page' : undefined}>
                {entry.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {section === 'flows' ? <Flows {...props} trigger={second ? decodeURIComponent(second) : 'post-login'} /> : <ActionLibrary {...props} />}
    </>
  );
}
