import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../../app.js';
import { ErrorNote } from '../../components.js';
import { lastLogList } from './logs.js';
import { typeName, type LogEvent } from './log-types.js';

const SUMMARY_FIELDS = ['date', 'type', 'description', 'user_name', 'user_id', 'client_name', 'client_id', 'connection', 'ip', 'user_agent', 'log_id'] as const;

/** One event (`GET /api/v2/logs/{id}`): its main fields, and all of it as JSON. */
export function LogDetail({ api, id }: PageProps & { id: string }) {
  const [event, setEvent] = useState<LogEvent | undefined>();
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    api<LogEvent>('GET', `/logs/${encodeURIComponent(id)}`).then(setEvent, setError);
  }, [api, id]);

  return (
    <section>
      <p>
        <a href={lastLogList}>← Logs</a>
      </p>
      <h1 tabIndex={-1}>{event ? typeName(event.type) : 'Log event'}</h1>
      <ErrorNote error={error} />
      {event ? (
        <>
          <div class="card">
            <h2>Summary</h2>
            <dl>
              {SUMMARY_FIELDS.filter((field) => event[field] !== undefined).map((field) => (
                <div key={field} class="field">
                  <dt>{field}</dt>
                  <dd>
                    {field === 'user_id' ? (
                      <a href={`/admin/users/${encodeURIComponent(String(event.user_id))}`}>{event.user_id}</a>
                    ) : field === 'client_id' ? (
                      <a href={`/admin/applications/${encodeURIComponent(String(event.client_id))}`}>{event.client_id}</a>
                    ) : field === 'date' ? (
                      `${new Date(event.date).toLocaleString()} (${event.date})`
                    ) : (
                      String(event[field])
                    )}
                  </dd>
                </div>
              ))}
            </dl>
          </div>
          <div class="card">
            <h2>Event as JSON</h2>
            <pre tabIndex={0} aria-label="The event as JSON" data-testid="log-json">
              {JSON.stringify(event, null, 2)}
            </pre>
          </div>
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}
