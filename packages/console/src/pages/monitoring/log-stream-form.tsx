import { useState } from 'preact/hooks';
import { ErrorNote, lines } from '../../components.js';
import { Checks, Radios, type Choice } from '../../fields.js';

/** A log stream as `/api/v2/log-streams` answers it (credentials masked). */
export interface LogStream {
  id: string;
  name: string;
  type: string;
  status: 'active' | 'paused' | 'suspended';
  isPriority: boolean;
  filters?: { type: 'category'; name: string }[];
  sink: {
    httpEndpoint?: string;
    httpContentType?: string;
    httpContentFormat?: string;
    httpAuthorization?: string;
    httpCustomHeaders?: { header: string; value: string }[];
    [field: string]: unknown;
  };
  suspensionReason?: string;
}

/** The platform's filter categories: a stream with none of them ticked gets every event. */
const CATEGORIES: Choice<string>[] = [
  'auth.login.success',
  'auth.login.fail',
  'auth.login.notification',
  'auth.logout.success',
  'auth.logout.fail',
  'auth.signup.success',
  'auth.signup.fail',
  'auth.silent_auth.success',
  'auth.silent_auth.fail',
  'auth.token_exchange.success',
  'auth.token_exchange.fail',
  'management.success',
  'management.fail',
  'user.success',
  'user.fail',
  'user.notification',
  'system.notification',
  'scim.event',
  'actions',
  'other',
].map((value) => ({ value, label: value }));

const FORMATS: Choice<string>[] = [
  { value: 'JSONLINES', label: 'JSON lines', hint: 'One event a line.' },
  { value: 'JSONARRAY', label: 'JSON array', hint: 'A batch as one array of events.' },
  { value: 'JSONOBJECT', label: 'JSON object', hint: 'A batch as {"logs": [...]}.' },
];

/** `Header: value` lines, as the custom headers' text shows them. */
const headersText = (headers: LogStream['sink']['httpCustomHeaders']) => (headers ?? []).map(({ header, value }) => `${header}: ${value}`).join('\n');
function parseHeaders(text: string): { header: string; value: string }[] {
  return lines(text).map((line) => {
    const colon = line.indexOf(':');
    return colon < 0 ? { header: line, value: '' } : { header: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() };
  });
}

/**
 * Creating an `http` stream, or editing any stream: its name and filters, and an `http` sink's settings. A
 * credential comes back masked (`****abcd`): the authorization field starts empty and is sent only when typed, and
 * masked header values sent back unchanged keep the stored ones.
 */
export function LogStreamForm(props: { stream?: LogStream; submitLabel: string; onSubmit: (body: Record<string, unknown>) => Promise<void>; onCancel?: () => void }) {
  const { stream } = props;
  const http = !stream || stream.type === 'http';
  const [name, setName] = useState(stream?.name ?? '');
  const [endpoint, setEndpoint] = useState(stream?.sink.httpEndpoint ?? '');
  const [contentType, setContentType] = useState(stream?.sink.httpContentType ?? 'application/json');
  const [format, setFormat] = useState(stream?.sink.httpContentFormat ?? 'JSONLINES');
  const [authorization, setAuthorization] = useState('');
  const [headers, setHeaders] = useState(headersText(stream?.sink.httpCustomHeaders));
  const [categories, setCategories] = useState<string[]>(stream?.filters?.map((filter) => filter.name) ?? []);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const customHeaders = parseHeaders(headers);
    const sink = {
      httpEndpoint: endpoint.trim(),
      httpContentType: contentType.trim(),
      httpContentFormat: format,
      ...(authorization ? { httpAuthorization: authorization } : {}),
      // An update sends the list even when empty: that removes the headers the stream had.
      ...(customHeaders.length > 0 || stream ? { httpCustomHeaders: customHeaders } : {}),
    };
    const filters = categories.map((category) => ({ type: 'category', name: category }));
    try {
      await props.onSubmit({
        name: name.trim(),
        ...(stream ? {} : { type: 'http' }),
        ...(http ? { sink } : {}),
        // On creation no filter means every event; on an update an empty list says the same explicitly.
        ...(stream || filters.length > 0 ? { filters } : {}),
      });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  const stored = stream?.sink.httpAuthorization;
  return (
    <form class="card" aria-labelledby="stream-form-title" onSubmit={submit}>
      <h2 id="stream-form-title">{stream ? 'Settings' : 'New HTTP log stream'}</h2>
      <label for="stream-name">Name</label>
      <input id="stream-name" required maxLength={200} value={name} onInput={(event) => setName(event.currentTarget.value)} />
      {http ? (
        <>
          <label for="stream-endpoint">Endpoint URL</label>
          <input id="stream-endpoint" type="url" required maxLength={2048} aria-describedby="stream-endpoint-hint" value={endpoint} onInput={(event) => setEndpoint(event.currentTarget.value)} />
          <small id="stream-endpoint-hint">Events are POSTed here in batches. https (plain http only outside production).</small>
          <label for="stream-content-type">Content type</label>
          <input id="stream-content-type" required maxLength={200} value={contentType} onInput={(event) => setContentType(event.currentTarget.value)} />
          <Radios legend="Content format" name="stream-format" choices={FORMATS} selected={format} onChange={setFormat} />
          <label for="stream-authorization">Authorization header</label>
          <input
            id="stream-authorization"
            type="password"
            autoComplete="off"
            maxLength={4096}
            aria-describedby="stream-authorization-hint"
            value={authorization}
            onInput={(event) => setAuthorization(event.currentTarget.value)}
          />
          <small id="stream-authorization-hint">
            {stored ? `Stored: ${stored}. Leave empty to keep it; type a new value to replace it.` : 'Optional, e.g. Bearer <token>. Stored sealed, shown masked.'}
          </small>
          <label for="stream-headers">Other headers</label>
          <textarea id="stream-headers" rows={2} aria-describedby="stream-headers-hint" value={headers} onInput={(event) => setHeaders(event.currentTarget.value)} />
          <small id="stream-headers-hint">One a line, as Header: value. Values are shown masked; a masked value left as it is keeps the stored one.</small>
        </>
      ) : null}
      <Checks class="categories" legend="Event categories" hint="Only events of the ticked categories are sent; none ticked sends every event." choices={CATEGORIES} selected={categories} onChange={setCategories} />
      <ErrorNote error={error} />
      <div class="actions">
        {props.onCancel ? (
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        ) : null}
        <button type="submit" class="primary" disabled={busy}>
          {props.submitLabel}
        </button>
      </div>
    </form>
  );
}
