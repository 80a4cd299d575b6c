import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../../app.js';
import { ErrorNote } from '../../components.js';
import { navigate } from '../../router.js';
import { LogStreamForm, type LogStream } from './log-stream-form.js';

export const STREAMS_PATH = '/admin/monitoring/log-streams';
export const STATUS_LABELS: Record<LogStream['status'], string> = { active: 'Active', paused: 'Paused', suspended: 'Suspended' };

/** Where a stream sends, in one line. */
export function destinationOf(stream: LogStream): string {
  const sink = stream.sink;
  if (stream.type === 'http') return sink.httpEndpoint ?? '';
  if (stream.type === 'datadog') return `Datadog (${String(sink.datadogRegion ?? '')})`;
  if (stream.type === 'splunk') return `Splunk (${String(sink.splunkDomain ?? '')})`;
  return stream.type;
}

/**
 * The tenant's log streams. `/api/v2/log-streams` is not paged (the platform's API answers the whole list, and a
 * tenant has at most a handful of streams), so neither is this list.
 */
export function LogStreams({ api }: PageProps) {
  const [streams, setStreams] = useState<LogStream[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [creating, setCreating] = useState(false);

  useEffect(() => {
    api<LogStream[]>('GET', '/log-streams').then(setStreams, setError);
  }, [api]);

  async function create(body: Record<string, unknown>) {
    const created = await api<LogStream>('POST', '/log-streams', body);
    navigate(`${STREAMS_PATH}/${encodeURIComponent(created.id)}`);
  }

  return (
    <section>
      <div class="title-row">
        <h1 tabIndex={-1}>Log streams</h1>
        {!creating ? (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            Create log stream
          </button>
        ) : null}
      </div>
      <p class="muted">Streams send the tenant log&rsquo;s events, as they happen, to a service of yours: an HTTP endpoint, Datadog or Splunk.</p>
      {creating ? <LogStreamForm submitLabel="Create" onSubmit={create} onCancel={() => setCreating(false)} /> : null}
      <ErrorNote error={error} />
      {streams ? (
        streams.length === 0 ? (
          <p>No log stream yet.</p>
        ) : (
          <table>
            <caption class="visually-hidden">Log streams</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Type</th>
                <th scope="col">Destination</th>
              </tr>
            </thead>
            <tbody>
              {streams.map((stream) => (
                <tr key={stream.id}>
                  <td>
                    <a href={`${STREAMS_PATH}/${encodeURIComponent(stream.id)}`}>{stream.name}</a>
                  </td>
                  <td>{STATUS_LABELS[stream.status]}</td>
                  <td>{stream.type}</td>
                  <td>
                    <code>{destinationOf(stream)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}
