import type { RequestOrigin } from '../events/event.js';

/**
 * Request parameters an action never sees: credentials and one-time secrets (the platform hides them from
 * `event.request.body` and `query` too).
 */
const HIDDEN_PARAMETERS: ReadonlySet<string> = new Set([
  'password',
  'client_secret',
  'client_assertion',
  'code',
  'code_verifier',
  'refresh_token',
  'otp',
  'login_ticket',
  'verification_code',
  'state_verifier',
  '_csrf',
]);

const MAX_VALUE_CHARS = 2_048;

/** A copy of the parameters with plain string values only, secrets left out. */
function parameters(source: unknown): Record<string, string> {
  const copy: Record<string, string> = {};
  if (typeof source !== 'object' || source === null) return copy;
  for (const [name, value] of Object.entries(source)) {
    if (HIDDEN_PARAMETERS.has(name) || typeof value !== 'string') continue;
    copy[name] = value.length > MAX_VALUE_CHARS ? value.slice(0, MAX_VALUE_CHARS) : value;
  }
  return copy;
}

/** The preferred language: the request's `ui_locales`, else the first of Accept-Language. */
function language(origin: RequestOrigin, uiLocales: string | undefined): string | undefined {
  const fromRequest = uiLocales?.split(' ').find(Boolean);
  if (fromRequest) return fromRequest;
  const header = origin.details?.acceptLanguage?.split(',')[0]?.split(';')[0]?.trim();
  return header ? header.split('-')[0] : undefined;
}

/**
 * The platform's `event.request` of an action: address, host, agent, language, method, and (`withParameters`, the
 * login triggers') the query and body.
 */
export function actionRequestDetails(origin: RequestOrigin, options: { uiLocales?: string | undefined; withParameters?: boolean } = {}): Record<string, unknown> {
  const details = origin.details;
  const lang = language(origin, options.uiLocales);
  return {
    ip: origin.ip,
    ...(details ? { hostname: details.hostname, method: details.method } : {}),
    ...(origin.userAgent !== undefined ? { user_agent: origin.userAgent } : {}),
    ...(lang !== undefined ? { language: lang } : {}),
    ...(options.withParameters !== false ? { query: parameters(details?.query), body: parameters(details?.body) } : {}),
    // No address database: the platform's geoip fields are absent rather than made up.
    geoip: {},
  };
}
