import type { LogEvent } from './event.js';

type Draft = Omit<LogEvent, 'log_id'>;

/** The text fields of an event and the most characters each keeps (a request's header can be long; the log stays small). */
const TEXT_FIELDS: Readonly<Record<Exclude<keyof Draft, 'details'>, number>> = {
  date: 64,
  type: 64,
  description: 1024,
  client_id: 256,
  client_name: 256,
  connection: 256,
  connection_id: 256,
  strategy: 64,
  strategy_type: 64,
  ip: 64,
  user_agent: 512,
  user_id: 512,
  user_name: 512,
  hostname: 256,
  audience: 1024,
  scope: 2048,
};

/**
 * Keys of `details` whose values are secrets wherever they appear (a request's password, a code, a token, a
 * ticket...): their values are replaced, so that a producer passing more than it should still stores no secret.
 * Producers pass none in the first place: test/log-events.test.ts and test/log-events-management.test.ts check
 * that no secret their flows carried is in any stored event, test/log-event-recorder.test.ts this redaction.
 */
const SECRET_KEYS = new Set([
  'password',
  'new_password',
  'old_password',
  'secret',
  'client_secret',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'code',
  'otp',
  'verification_code',
  'ticket',
  'login_ticket',
  'assertion',
  'client_assertion',
  'code_verifier',
  'co_verifier',
  'authorization',
  'cookie',
  'samlresponse',
]);

const DETAIL_DEPTH = 5;
const DETAIL_ITEMS = 50;
const DETAIL_TEXT = 2048;

/** PostgreSQL text cannot hold NUL; a header or a name that carries one would make every batch with it fail. */
function text(value: string, max: number): string {
  const cleaned = value.includes('\u0000') ? value.replaceAll('\u0000', '') : value;
  return cleaned.length > max ? cleaned.slice(0, max) : cleaned;
}

function detail(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return text(value, DETAIL_TEXT);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (typeof value !== 'object' || depth >= DETAIL_DEPTH) return undefined;
  if (Array.isArray(value)) return value.slice(0, DETAIL_ITEMS).map((item) => detail(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_KEYS.has(key.toLowerCase()) ? '[redacted]' : detail(item, depth + 1);
  }
  return out;
}

/**
 * A copy of the event with only the platform's fields, text bounded and free of NUL, and secret-named keys of
 * `details` redacted. What is stored is this copy, never the producer's object. (It walks the event's own keys,
 * a handful, rather than every known field: it runs on the request's path.)
 */
export function cleanEvent(event: Partial<Draft>): Partial<Draft> {
  const clean: Record<string, unknown> = {};
  for (const field in event) {
    const value = (event as Record<string, unknown>)[field];
    if (field === 'details') {
      if (value !== undefined) clean.details = detail(value, 0);
      continue;
    }
    const max = TEXT_FIELDS[field as keyof typeof TEXT_FIELDS] as number | undefined;
    if (max !== undefined && typeof value === 'string') clean[field] = text(value, max);
  }
  return clean as Partial<Draft>;
}
