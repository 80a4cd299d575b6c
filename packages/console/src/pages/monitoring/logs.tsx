import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Api } from '../../api.js';
import type { PageProps } from '../../app.js';
import { ErrorNote, Pager } from '../../components.js';
import { EVENT_TYPES, typeName, type LogEvent } from './log-types.js';

const PER_PAGE = 50;
/** How far a search pages on the server (its search window): past it, narrow the dates. */
const SEARCH_WINDOW = 1000;
const LIST_PATH = '/admin/monitoring/logs';

interface Filters {
  type: string;
  user: string;
  client: string;
  connection: string;
  from: string;
  to: string;
  query: string;
}
const NO_FILTERS: Filters = { type: '', user: '', client: '', connection: '', from: '', to: '', query: '' };
const FILTER_NAMES = Object.keys(NO_FILTERS) as (keyof Filters)[];

interface LogPage {
  start: number;
  limit: number;
  length: number;
  total: number;
  logs: LogEvent[];
}

/** The list's address with its filters and page, so that a reload, a shared link or "back" from an event shows the same events. */
function listUrl(filters: Filters, page: number): string {
  const params = new URLSearchParams();
  for (const name of FILTER_NAMES) if (filters[name].trim()) params.set(name, filters[name].trim());
  if (page > 0) params.set('page', String(page));
  const search = params.toString();
  return search ? `${LIST_PATH}?${search}` : LIST_PATH;
}

/** Where the event page's "back" link goes: the list as the administrator left it. */
export let lastLogList = LIST_PATH;

function fromUrl(): { filters: Filters; page: number } {
  const params = new URLSearchParams(location.search);
  const filters = { ...NO_FILTERS };
  for (const name of FILTER_NAMES) filters[name] = params.get(name) ?? '';
  return { filters, page: Math.max(0, Number(params.get('page')) || 0) };
}

const quoted = (value: string) => `"${value.replace(/[\\"]/g, '\\$&')}"`;

/**
 * The filters in the query syntax `/api/v2/logs?q=` takes. The log indexes user ids, not e-mail addresses, so an
 * address is first looked up (`/users-by-email`) and its users' ids searched.
 */
async function queryOf(api: Api, filters: Filters): Promise<string> {
  const terms: string[] = [];
  if (filters.type) terms.push(`type:${quoted(filters.type)}`);
  const user = filters.user.trim();
  if (user) {
    let ids = [user];
    if (user.includes('@') && !user.includes('|')) {
      const found = await api<{ user_id: string }[]>('GET', `/users-by-email?email=${encodeURIComponent(user)}&fields=user_id`);
      if (found.length === 0) throw new Error(`No user has the e-mail address ${user}.`);
      ids = found.map((entry) => entry.user_id);
    }
    const values = ids.map(quoted);
    terms.push(values.length === 1 ? `user_id:${values.join('')}` : `user_id:(${values.join(' OR ')})`);
  }
  if (filters.client.trim()) terms.push(`client_id:${quoted(filters.client.trim())}`);
  if (filters.connection.trim()) terms.push(`connection:${quoted(filters.connection.trim())}`);
  if (filters.from || filters.to) terms.push(`date:[${filters.from || '*'} TO ${filters.to || '*'}]`);
  const typed = filters.query.trim();
  if (typed) terms.push(terms.length > 0 ? `(${typed})` : typed);
  return terms.join(' AND ');
}

function FilterField(props: { name: keyof Filters; label: string; hint?: string; date?: boolean; filters: Filters; onChange: (filters: Filters) => void }) {
  const id = `log-${props.name}`;
  const input = {
    id,
    value: props.filters[props.name],
    ...(props.hint ? { 'aria-describedby': `${id}-hint` } : {}),
    onInput: (event: { currentTarget: HTMLInputElement }) => props.onChange({ ...props.filters, [props.name]: event.currentTarget.value }),
  };
  return (
    <div>
      <label for={id}>{props.label}</label>
      {props.date ? <input type="date" {...input} /> : <input {...input} />}
      {props.hint ? <small id={`${id}-hint`}>{props.hint}</small> : null}
    </div>
  );
}

/** The tenant log, searched on the server (`q`) and paged there (`page`, `per_page`, `include_totals`), newest first. */
export function Logs({ api }: PageProps) {
  const initial = useMemo(fromUrl, []);
  const [draft, setDraft] = useState(initial.filters);
  const [applied, setApplied] = useState({ ...initial, run: 0 });
  const [result, setResult] = useState<{ q: string; list: LogPage } | undefined>();
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    let stale = false;
    setError(undefined);
    lastLogList = listUrl(applied.filters, applied.page);
    history.replaceState(null, '', lastLogList);
    (async () => {
      const q = await queryOf(api, applied.filters);
      const params = new URLSearchParams({ include_totals: 'true', page: String(applied.page), per_page: String(PER_PAGE), sort: 'date:-1' });
      if (q) params.set('q', q);
      const list = await api<LogPage>('GET', `/logs?${params.toString()}`);
      if (!stale) setResult({ q, list });
    })().catch((caught: unknown) => {
      if (stale) return;
      setResult(undefined);
      setError(caught);
    });
    return () => {
      stale = true;
    };
  }, [api, applied]);

  function search(event: Event) {
    event.preventDefault();
    setApplied({ filters: draft, page: 0, run: applied.run + 1 });
  }

  function clear() {
    setDraft(NO_FILTERS);
    setApplied({ filters: NO_FILTERS, page: 0, run: applied.run + 1 });
  }

  const field = (name: keyof Filters, label: string, extra: { hint?: string; date?: boolean } = {}) => <FilterField name={name} label={label} {...extra} filters={draft} onChange={setDraft} />;
  return (
    <section>
      <h1 tabIndex={-1}>Logs</h1>
      <form role="search" aria-label="Filter log events" class="card" onSubmit={search}>
        <div class="filters">
          <div>
            <label for="log-type">Event type</label>
            <select id="log-type" value={draft.type} onChange={(event) => setDraft({ ...draft, type: event.currentTarget.value })}>
              <option value="">Any type</option>
              {EVENT_TYPES.map((type) => (
                <option key={type.code} value={type.code}>
                  {type.name} ({type.code})
                </option>
              ))}
            </select>
          </div>
          {field('user', 'User', { hint: 'A user ID, or an e-mail address.' })}
          {field('client', 'Application', { hint: 'A client ID.' })}
          {field('connection', 'Connection', { hint: 'Its name.' })}
          {field('from', 'From day', { date: true, hint: 'Days are UTC.' })}
          {field('to', 'To day', { date: true, hint: 'Inclusive.' })}
        </div>
        <label for="log-query">Query</label>
        <input
          id="log-query"
          aria-describedby="log-query-hint"
          value={draft.query}
          onInput={(event) => setDraft({ ...draft, query: event.currentTarget.value })}
        />
        <small id="log-query-hint">
          More conditions in the query syntax, added to the fields above: e.g. <code>ip:"203.0.113.7"</code>, <code>type:(f OR fp)</code>, <code>NOT type:sapi</code>.
          Fields: log_id, date, type, user_id, client_id, connection, ip.
        </small>
        <div class="actions">
          <button type="submit" class="primary">
            Search
          </button>
          <button type="button" onClick={clear}>
            Clear
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      {result ? (
        <>
          <p class="muted">
            {result.q ? (
              <>
                Query sent: <code data-testid="log-query-sent">{result.q}</code>
              </>
            ) : (
              'Every event, newest first.'
            )}
          </p>
          <table>
            <caption class="visually-hidden">Log events</caption>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">Event</th>
                <th scope="col">Description</th>
                <th scope="col">User</th>
                <th scope="col">Application</th>
              </tr>
            </thead>
            <tbody>
              {result.list.logs.map((event) => (
                <tr key={event.log_id}>
                  <td>
                    <a href={`${LIST_PATH}/${encodeURIComponent(event.log_id)}`}>{new Date(event.date).toLocaleString()}</a>
                  </td>
                  <td>
                    {typeName(event.type)} <code>{event.type}</code>
                  </td>
                  <td>{event.description}</td>
                  <td>{event.user_name ?? event.user_id}</td>
                  <td>{event.client_name ?? event.client_id}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {result.list.logs.length === 0 ? <p>No event matches.</p> : null}
          <Pager page={applied.page} perPage={PER_PAGE} total={result.list.total} label="Events" onPage={(page) => setApplied({ ...applied, page })} />
          {result.list.total >= SEARCH_WINDOW ? <p class="muted">A search pages through its first {SEARCH_WINDOW} events: narrow the days to see older ones.</p> : null}
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}
