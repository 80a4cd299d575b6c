import type { PageProps } from '../../app.js';
import { AreaNav } from '../../fields.js';
import { LogDetail } from './log-detail.js';
import { LogStreamDetail } from './log-stream-detail.js';
import { LogStreams } from './log-streams.js';
import { Logs } from './logs.js';
import { Stats } from './stats.js';

const PAGES = [
  { path: '/admin/monitoring/logs', label: 'Logs' },
  { path: '/admin/monitoring/stats', label: 'Statistics' },
  { path: '/admin/monitoring/log-streams', label: 'Log streams' },
] as const;

/** The Monitoring area: the tenant log and one event, the statistics drawn from it, and the streams that send it out. */
export function Monitoring({ path, ...props }: PageProps & { path: string }) {
  const [, page, id] = /^\/admin\/monitoring\/([a-z-]+)\/?([^/]+)?/.exec(path) ?? [];
  const current = PAGES.find((entry) => entry.path === `/admin/monitoring/${page ?? ''}`) ?? PAGES[0];
  const key = id ? decodeURIComponent(id) : undefined;
  return (
    <>
      <AreaNav label="Monitoring pages" pages={PAGES} current={current.path} />
      {current === PAGES[1] ? (
        <Stats {...props} />
      ) : current === PAGES[2] ? (
        key ? <LogStreamDetail {...props} id={key} /> : <LogStreams {...props} />
      ) : key ? (
        <LogDetail {...props} id={key} />
      ) : (
        <Logs {...props} />
      )}
    </>
  );
}
