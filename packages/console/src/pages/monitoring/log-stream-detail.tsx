import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../../app.js';
import { ConfirmDialog, ErrorNote } from '../../components.js';
import { navigate } from '../../router.js';
import { LogStreamForm, type LogStream } from './log-stream-form.js';
import { destinationOf, STATUS_LABELS, STREAMS_PATH } from './log-streams.js';

/** One stream: pause or resume its delivery, change its settings, delete it (after a confirmation). */
export function LogStreamDetail({ api, id }: PageProps & { id: string }) {
  const [stream, setStream] = useState<LogStream | undefined>();
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');
  const [confirming, setConfirming] = useState(false);
  const path = `/log-streams/${encodeURIComponent(id)}`;

  useEffect(() => {
    api<LogStream>('GET', path).then(setStream, setError);
  }, [api, path]);

  async function setDelivery(next: 'active' | 'paused') {
    setError(undefined);
    setStatus('');
    try {
      setStream(await api<LogStream>('PATCH', path, { status: next }));
      setStatus(next === 'paused' ? 'Paused: events wait in the log until the stream is resumed.' : 'Resumed: delivery goes on from where it stopped.');
    } catch (caught) {
      setError(caught);
    }
  }

  async function save(body: Record<string, unknown>) {
    setStatus('');
    setStream(await api<LogStream>('PATCH', path, body));
    setStatus('Saved.');
  }

  async function remove() {
    setConfirming(false);
    try {
      await api('DELETE', path);
      navigate(STREAMS_PATH);
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <section>
      <p>
        <a href={STREAMS_PATH}>← Log streams</a>
      </p>
      <h1 tabIndex={-1}>
        {stream?.name ?? 'Log stream'}
        {stream && stream.status !== 'active' ? <span class="badge">{STATUS_LABELS[stream.status]}</span> : null}
      </h1>
      <ErrorNote error={error} />
      {status ? <p role="status">{status}</p> : null}
      {stream ? (
        <>
          <div class="card">
            <h2>Delivery</h2>
            <dl>
              <div class="field">
                <dt>Status</dt>
                <dd data-testid="stream-status">{STATUS_LABELS[stream.status]}</dd>
              </div>
              {stream.suspensionReason ? (
                <div class="field">
                  <dt>Suspended because</dt>
                  <dd>{stream.suspensionReason}</dd>
                </div>
              ) : null}
              <div class="field">
                <dt>Type</dt>
                <dd>{stream.type}</dd>
              </div>
              <div class="field">
                <dt>Destination</dt>
                <dd>
                  <code>{destinationOf(stream)}</code>
                </dd>
              </div>
              <div class="field">
                <dt>Stream ID</dt>
                <dd>
                  <code>{stream.id}</code>
                </dd>
              </div>
            </dl>
            <div class="actions">
              {stream.status === 'active' ? (
                <button type="button" onClick={() => void setDelivery('paused')}>
                  Pause
                </button>
              ) : (
                <button type="button" onClick={() => void setDelivery('active')}>
                  Resume
                </button>
              )}
              <button type="button" class="danger" onClick={() => setConfirming(true)}>
                Delete log stream
              </button>
            </div>
          </div>
          <LogStreamForm key={stream.id} stream={stream} submitLabel="Save changes" onSubmit={save} />
          {confirming ? (
            <ConfirmDialog title={`Delete ${stream.name}?`} confirmLabel="Delete" onConfirm={() => void remove()} onCancel={() => setConfirming(false)}>
              <p>Events stop going to {destinationOf(stream)}. Events not yet sent are not sent.</p>
            </ConfirmDialog>
          ) : null}
        </>
      ) : !error ? (
        <p aria-busy="true">Loading…</p>
      ) : null}
    </section>
  );
}
