import { LOG_EVENT_TYPES, type LogEventType } from '../events/event.js';
import type { LogStreamStatus } from '../../storage/repositories/log-streams.js';

/**
 * A log stream as the platform defines it (`/api/v2/log-streams`): a name, a sink type with its `sink` settings,
 * optional category filters and a status. Latchkey delivers three sink types: `http` (the platform's custom
 * webhook), `datadog` and `splunk` (both are plain HTTPS intake APIs, see sinks.ts).
 */

export type { LogStreamStatus };
export const LOG_STREAM_STATUSES: readonly LogStreamStatus[] = ['active', 'paused', 'suspended'];

export const LOG_STREAM_TYPES = ['http', 'datadog', 'splunk'] as const;
export type LogStreamType = (typeof LOG_STREAM_TYPES)[number];

export const HTTP_CONTENT_FORMATS = ['JSONARRAY', 'JSONLINES', 'JSONOBJECT'] as const;
export type HttpContentFormat = (typeof HTTP_CONTENT_FORMATS)[number];

/** Datadog sites by the platform's region names. */
export const DATADOG_SITES = { us: 'datadoghq.com', eu: 'datadoghq.eu', us3: 'us3.datadoghq.com', us5: 'us5.datadoghq.com' } as const;
export type DatadogRegion = keyof typeof DATADOG_SITES;

export interface HttpCustomHeader {
  header: string;
  value: string;
}

/** Every sink field of every type, as the API names them (each type uses its own; sinks.ts checks which). */
export interface LogStreamSink {
  httpEndpoint?: string;
  httpContentType?: string;
  httpContentFormat?: HttpContentFormat;
  httpAuthorization?: string;
  httpCustomHeaders?: HttpCustomHeader[];
  datadogApiKey?: string;
  datadogRegion?: DatadogRegion;
  splunkDomain?: string;
  splunkToken?: string;
  splunkPort?: string;
  splunkSecure?: boolean;
}

/**
 * The sink fields that are credentials for the receiving side. They are sent to it in clear, so they cannot be
 * hashed: at rest they are sealed (stream-secrets.ts), and an answer of the API shows only their last characters.
 * Custom header values count as credentials too (an `X-Api-Key` is a common use of them).
 */
export const SECRET_SINK_FIELDS = ['httpAuthorization', 'datadogApiKey', 'splunkToken'] as const;
export type SecretSinkField = (typeof SECRET_SINK_FIELDS)[number];

/** The filter categories the platform accepts. Latchkey records events of most of them; a filter on another matches nothing. */
export const LOG_STREAM_CATEGORIES = [
  'auth.login.fail',
  'auth.login.notification',
  'auth.login.success',
  'auth.logout.fail',
  'auth.logout.success',
  'auth.signup.fail',
  'auth.signup.success',
  'auth.silent_auth.fail',
  'auth.silent_auth.success',
  'auth.token_exchange.fail',
  'auth.token_exchange.success',
  'management.fail',
  'management.success',
  'scim.event',
  'system.notification',
  'user.fail',
  'user.notification',
  'user.success',
  'actions',
  'other',
] as const;
export type LogStreamCategory = (typeof LOG_STREAM_CATEGORIES)[number];

export interface LogStreamFilter {
  type: 'category';
  name: LogStreamCategory;
}

/** The stored settings of a stream: what the API shows, with the credentials sealed (`sealed`). */
export interface StoredLogStream {
  name: string;
  type: LogStreamType;
  isPriority: boolean;
  filters?: LogStreamFilter[];
  /** The sink without its credentials. */
  sink: LogStreamSink;
  /** The credentials of the sink, each sealed: the secret fields by name, and the custom headers as one JSON text. */
  sealed?: Partial<Record<SecretSinkField | 'httpCustomHeaders', string>>;
}

/**
 * The event types a stream's filters let through, or undefined for every type (no filters, or an empty list:
 * "if omitted or empty, all events will be delivered").
 */
export function typesOfFilters(filters: readonly LogStreamFilter[] | undefined): LogEventType[] | undefined {
  if (!filters || filters.length === 0) return undefined;
  const wanted = new Set<string>(filters.map((filter) => filter.name));
  return (Object.keys(LOG_EVENT_TYPES) as LogEventType[]).filter((type) => wanted.has(LOG_EVENT_TYPES[type].category));
}
