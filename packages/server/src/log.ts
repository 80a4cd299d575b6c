import { pino, type Logger } from 'pino';

/**
 * Query parameters whose values say what a request is about and are no secret. Every other value is replaced in
 * the log: URLs carry one-time secrets (`code`, `ticket`, `verification_code`, `id_token_hint`, `SAMLResponse`,
 * `login_ticket`, …) and whoever reads the log must not be able to replay them.
 */
const SHOWN_PARAMETERS = new Set([
  'client_id',
  'response_type',
  'response_mode',
  'redirect_uri',
  'scope',
  'audience',
  'connection',
  'prompt',
  'screen_hint',
  'returnTo',
  'federated',
  'page',
  'per_page',
  'include_totals',
  'fields',
  'include_fields',
  'strategy',
]);

/** The request URL as logged: the path, and the query with the values of secret-bearing parameters hidden. */
export function urlForLog(url: string): string {
  const mark = url.indexOf('?');
  if (mark === -1) return url;
  const query = new URLSearchParams(url.slice(mark + 1));
  const shown = [...query].map(([name, value]) => `${encodeURIComponent(name)}=${SHOWN_PARAMETERS.has(name) ? encodeURIComponent(value) : '[redacted]'}`);
  return `${url.slice(0, mark)}?${shown.join('&')}`;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * The process's logger. Request logs (LOG_LEVEL=debug or trace) show the method, the URL without secrets, the host
 * and the client address; credentials in headers are never serialized.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: ['req.headers.authorization', 'req.headers.cookie'],
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: urlForLog(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  });
}
