import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { ErrorNote } from '../components.js';
import { useAction } from '../hooks.js';
import type { Connection, Job, JobError } from '../types.js';
import { DatabaseConnectionSelect } from './user-create.js';

const POLL_MS = 1000;
const STATUS_WORDS: Record<string, string> = {
  pending: 'Waiting to start…',
  processing: 'In progress…',
  completed: 'Completed.',
  failed: 'Failed.',
};
const finished = (job: Job) => job.status === 'completed' || job.status === 'failed';

/** A refused record in words: whom it was (e-mail, else its position) and what was wrong. */
function refusal(error: JobError, index: number): string {
  const user = error.user as { email?: unknown } | undefined;
  const who = typeof user?.email === 'string' ? user.email : `Record ${index + 1}`;
  return `${who}: ${error.errors.map((entry) => entry.message).join('; ')}`;
}

/**
 * A job followed to its end: `GET /jobs/{id}` every second until it completes or fails, then what it did (an import's
 * summary and refused records, an export's download link).
 */
export function JobProgress({ api, job: started, onFinished }: PageProps & { job: Job; onFinished?: (job: Job) => void }) {
  const [job, setJob] = useState(started);
  const [errors, setErrors] = useState<JobError[] | undefined>();
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let current = true;
    const poll = async () => {
      try {
        const latest = await api<Job>('GET', `/jobs/${encodeURIComponent(started.id)}`);
        if (!current) return;
        setJob(latest);
        if (!finished(latest)) {
          timer = setTimeout(() => void poll(), POLL_MS);
          return;
        }
        onFinished?.(latest);
        if (latest.type === 'users_import') {
          const refused = await api<JobError[]>('GET', `/jobs/${encodeURIComponent(started.id)}/errors`);
          if (current) setErrors(refused);
        }
      } catch (caught) {
        if (current) setError(caught);
      }
    };
    timer = setTimeout(() => void poll(), finished(started) ? 0 : POLL_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [api, started]);

  const title = job.type === 'users_export' ? 'Export' : 'Import';
  return (
    <section class="card job" aria-labelledby={`job-${job.id}`}>
      <h3 id={`job-${job.id}`}>
        {title} job <code>{job.id}</code>
      </h3>
      <progress max={1} {...(finished(job) ? { value: 1 } : {})} aria-label={`${title} progress`} />
      <p role="status">
        {STATUS_WORDS[job.status] ?? job.status}
        {job.summary ? ` ${job.summary.inserted} inserted, ${job.summary.updated} updated, ${job.summary.failed} failed, of ${job.summary.total}.` : ''}
      </p>
      <ErrorNote error={error} />
      {errors && errors.length > 0 ? (
        <>
          <h4>Records not imported</h4>
          <ul>
            {errors.map((entry, index) => (
              <li key={index}>{refusal(entry, index)}</li>
            ))}
          </ul>
        </>
      ) : null}
      {job.location ? (
        <p>
          <a href={job.location} download>
            Download the export
          </a>{' '}
          <small>{job.format === 'json' ? 'JSON lines' : 'CSV'}, gzip-compressed; the link works for 10 minutes (open this page again for a new one).</small>
        </p>
      ) : null}
    </section>
  );
}

/** A JSON file of users (the platform's bulk-import format, at most 500 KB) imported into a database connection. */
export function ImportUsers(props: PageProps & { onClose: () => void; onImported: () => void }) {
  const { api } = props;
  const [connection, setConnection] = useState<Connection | undefined>();
  const [file, setFile] = useState<File | undefined>();
  const [upsert, setUpsert] = useState(false);
  const [job, setJob] = useState<Job | undefined>();
  const action = useAction();

  async function submit(event: Event) {
    event.preventDefault();
    await action.run(async () => {
      if (!connection || !file) throw new Error('Choose a database connection and a JSON file of users.');
      const form = new FormData();
      form.append('users', file, file.name);
      form.append('connection_id', connection.id);
      form.append('upsert', String(upsert));
      setJob(await api<Job>('POST', '/jobs/users-imports', form));
    });
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="import-title">
      <h2 id="import-title">Import users</h2>
      <DatabaseConnectionSelect {...props} id="import-connection" label="Into the connection" value={connection} onChange={setConnection} />
      <label for="import-file">Users file (JSON)</label>
      <input id="import-file" type="file" accept="application/json,.json" required aria-describedby="import-file-hint" onChange={(event) => setFile(event.currentTarget.files?.[0])} />
      <small id="import-file-hint">An array of users as the platform's bulk import takes them (email, password_hash or none, user_metadata, …), at most 500 KB.</small>
      <label class="check">
        <input type="checkbox" checked={upsert} onChange={(event) => setUpsert(event.currentTarget.checked)} />
        Update users that exist already (upsert)
      </label>
      <ErrorNote error={action.error} />
      <div class="actions">
        <button type="button" onClick={props.onClose}>
          Close
        </button>
        <button type="submit" class="primary" disabled={action.busy}>
          Import
        </button>
      </div>
      {job ? <JobProgress {...props} key={job.id} job={job} onFinished={props.onImported} /> : null}
    </form>
  );
}

/** Every user (or those of one connection) written to a file, CSV or JSON lines, to download once ready. */
export function ExportUsers(props: PageProps & { onClose: () => void }) {
  const { api } = props;
  const [connection, setConnection] = useState<Connection | undefined>();
  const [format, setFormat] = useState<'csv' | 'json'>('csv');
  const [job, setJob] = useState<Job | undefined>();
  const action = useAction();

  async function submit(event: Event) {
    event.preventDefault();
    await action.run(async () => setJob(await api<Job>('POST', '/jobs/users-exports', { format, ...(connection ? { connection_id: connection.id } : {}) })));
  }

  return (
    <form class="card" onSubmit={submit} aria-labelledby="export-title">
      <h2 id="export-title">Export users</h2>
      <DatabaseConnectionSelect {...props} id="export-connection" label="Users of" anyLabel="Every connection" value={connection} onChange={setConnection} />
      <fieldset>
        <legend>Format</legend>
        <label class="check">
          <input type="radio" name="export-format" checked={format === 'csv'} onChange={() => setFormat('csv')} />
          CSV
        </label>
        <label class="check">
          <input type="radio" name="export-format" checked={format === 'json'} onChange={() => setFormat('json')} />
          JSON lines
        </label>
      </fieldset>
      <ErrorNote error={action.error} />
      <div class="actions">
        <button type="button" onClick={props.onClose}>
          Close
        </button>
        <button type="submit" class="primary" disabled={action.busy}>
          Export
        </button>
      </div>
      {job ? <JobProgress {...props} key={job.id} job={job} /> : null}
    </form>
  );
}
