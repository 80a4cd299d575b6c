import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../../app.js';
import { ErrorNote } from '../../components.js';
import { DailyChart, SERIES, type Day } from './daily-chart.js';

interface DailyStats {
  date: string;
  logins: number;
  signups: number;
  leaked_passwords: number;
}

const DAY_MS = 86_400_000;
const PERIODS = [7, 30, 90] as const;
const compact = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

/** Every day of the period, oldest first: the API lists only days with events. */
function fillDays(stats: DailyStats[], from: number, count: number): Day[] {
  const byDay = new Map(stats.map((entry) => [entry.date.slice(0, 10), entry]));
  return Array.from({ length: count }, (_, index) => {
    const day = new Date(from + index * DAY_MS).toISOString().slice(0, 10);
    const entry = byDay.get(day);
    return { day, logins: entry?.logins ?? 0, signups: entry?.signups ?? 0, leaked_passwords: entry?.leaked_passwords ?? 0 };
  });
}

function summaryOf(days: Day[]): string {
  const total = (key: (typeof SERIES)[number]['key']) => days.reduce((sum, day) => sum + day[key], 0);
  const today = days.at(-1);
  return `Over ${days.length} days: ${total('logins')} logins, ${total('signups')} signups, ${total('leaked_passwords')} leaked passwords. Today: ${today?.logins ?? 0} logins, ${today?.signups ?? 0} signups.`;
}

/** `/api/v2/stats/active-users` and `/api/v2/stats/daily` (days are UTC, as the API counts them). */
export function Stats({ api }: PageProps) {
  const [period, setPeriod] = useState<number>(30);
  const [days, setDays] = useState<Day[] | undefined>();
  const [active, setActive] = useState<number | undefined>();
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    api<number>('GET', '/stats/active-users').then(setActive, setError);
  }, [api]);

  useEffect(() => {
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const from = today - (period - 1) * DAY_MS;
    setError(undefined);
    api<DailyStats[]>('GET', `/stats/daily?from=${compact(from)}&to=${compact(today)}`).then((stats) => setDays(fillDays(stats, from, period)), setError);
  }, [api, period]);

  return (
    <section>
      <h1 tabIndex={-1}>Statistics</h1>
      <ErrorNote error={error} />
      <div class="card">
        <h2>Active users</h2>
        <p class="figure" data-testid="active-users">
          {active ?? '…'}
        </p>
        <small>Users who logged in during the last 30 days.</small>
      </div>
      <div class="card">
        <div class="title-row">
          <h2>Daily activity</h2>
          <div>
            <label for="stats-period">Period</label>
            <select id="stats-period" value={String(period)} onChange={(event) => setPeriod(Number(event.currentTarget.value))}>
              {PERIODS.map((count) => (
                <option key={count} value={String(count)}>
                  Last {count} days
                </option>
              ))}
            </select>
          </div>
        </div>
        {days ? (
          <>
            <ul class="legend" aria-hidden="true">
              {SERIES.map((series) => (
                <li key={series.key}>
                  <span class={`swatch ${series.class}`} />
                  {series.label}
                </li>
              ))}
            </ul>
            <DailyChart days={days} summary={summaryOf(days)} />
            <details>
              <summary>The numbers, day by day</summary>
              <table data-testid="daily-table">
                <caption class="visually-hidden">Logins, signups and leaked passwords per day (UTC)</caption>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    {SERIES.map((series) => (
                      <th key={series.key} scope="col">
                        {series.label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {[...days].reverse().map((day) => (
                    <tr key={day.day}>
                      <th scope="row">{day.day}</th>
                      {SERIES.map((series) => (
                        <td key={series.key}>{day[series.key]}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </details>
          </>
        ) : !error ? (
          <p aria-busy="true">Loading…</p>
        ) : null}
      </div>
    </section>
  );
}
