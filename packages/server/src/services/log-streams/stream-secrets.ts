import { open, seal } from '../../crypto/secret-box.js';
import { SECRET_SINK_FIELDS, type HttpCustomHeader, type LogStreamSink, type StoredLogStream } from './definition.js';

/** Secrets shorter than this are shown as the mask alone: their last characters would be too much of them. */
const SHOWN_FROM_LENGTH = 16;
const SHOWN_CHARACTERS = 4;

/**
 * How an answer shows a credential: `****` and, for a long one, its last four characters, so that an operator can
 * tell which key is configured without the API handing it out. (The platform returns log-stream credentials in
 * full to API callers and redacts them for its dashboard; Latchkey redacts them for every caller.)
 */
export function masked(secret: string): string {
  return secret.length >= SHOWN_FROM_LENGTH ? `****${secret.slice(-SHOWN_CHARACTERS)}` : '****';
}

/** The sink as an answer shows it: credentials and custom header values masked. */
export function maskedSink(sink: LogStreamSink): LogStreamSink {
  const shown: LogStreamSink = { ...sink };
  for (const field of SECRET_SINK_FIELDS) {
    const value = shown[field];
    if (value !== undefined) shown[field] = masked(value);
  }
  if (shown.httpCustomHeaders) shown.httpCustomHeaders = shown.httpCustomHeaders.map(({ header, value }) => ({ header, value: masked(value) }));
  return shown;
}

/**
 * Keeps a stored credential when an update sends back its masked form (a client that reads a stream, changes
 * one field and writes the whole sink back must not replace the key with `****abcd`).
 */
export function unmasked(given: LogStreamSink, stored: LogStreamSink): LogStreamSink {
  const kept: LogStreamSink = { ...given };
  for (const field of SECRET_SINK_FIELDS) {
    const value = kept[field];
    const previous = stored[field];
    if (value !== undefined && previous !== undefined && value === masked(previous)) kept[field] = previous;
  }
  if (kept.httpCustomHeaders && stored.httpCustomHeaders) {
    const previous = new Map(stored.httpCustomHeaders.map(({ header, value }) => [header.toLowerCase(), value]));
    kept.httpCustomHeaders = kept.httpCustomHeaders.map(({ header, value }) => {
      const before = previous.get(header.toLowerCase());
      return { header, value: before !== undefined && value === masked(before) ? before : value };
    });
  }
  return kept;
}

/**
 * Seals a stream's credentials at rest with AES-256-GCM under a key derived from LATCHKEY_SECRET (as connection
 * secrets are), so that a copy of the database alone does not hand out the keys of the operator's log tools.
 */
export function logStreamSecrets(key: Buffer) {
  return {
    /** The stored form of a sink: the credentials move from `sink` to `sealed`. */
    seal(sink: LogStreamSink): Pick<StoredLogStream, 'sink' | 'sealed'> {
      const plain: LogStreamSink = { ...sink };
      const sealed: NonNullable<StoredLogStream['sealed']> = {};
      for (const field of SECRET_SINK_FIELDS) {
        const value = plain[field];
        if (value === undefined) continue;
        sealed[field] = seal(key, value);
        delete plain[field];
      }
      if (plain.httpCustomHeaders) {
        sealed.httpCustomHeaders = seal(key, JSON.stringify(plain.httpCustomHeaders));
        delete plain.httpCustomHeaders;
      }
      return Object.keys(sealed).length > 0 ? { sink: plain, sealed } : { sink: plain };
    },
    /** The whole sink, credentials opened, as delivery sends it and as an update merges into it. */
    open(stored: Pick<StoredLogStream, 'sink' | 'sealed'>): LogStreamSink {
      const sink: LogStreamSink = { ...stored.sink };
      const sealed = stored.sealed ?? {};
      for (const field of SECRET_SINK_FIELDS) {
        const value = sealed[field];
        if (value !== undefined) sink[field] = open(key, value);
      }
      if (sealed.httpCustomHeaders !== undefined) sink.httpCustomHeaders = JSON.parse(open(key, sealed.httpCustomHeaders)) as HttpCustomHeader[];
      return sink;
    },
  };
}

export type LogStreamSecrets = ReturnType<typeof logStreamSecrets>;
