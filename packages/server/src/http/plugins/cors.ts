import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthConfig } from '../../services/config-cache.js';

/** Authentication API endpoints browsers call from applications' pages (the browser library's calls). */
export const AUTHENTICATION_CORS_PATHS = [/^\/oauth\/token\/?$/, /^\/oauth\/revoke\/?$/, /^\/userinfo\/?$/, /^\/co\//, /^\/dbconnections\//, /^\/passwordless\//];

/** The Management API's current-user calls (the browser library's `Management`), made with bearer tokens. */
export const MANAGEMENT_CORS_PATHS = [/^\/api\/v2\/users\//];

// X-Request-Language: the browser library sends it with passwordless start when its `xRequestLanguage` option is
// set; a preflight that does not allow it makes the browser refuse the call. (The server does not read it.)
const ALLOWED_HEADERS = 'Authorization, Content-Type, Auth0-Client, X-Requested-With, X-Request-Language';

export interface CorsDeps {
  config: OAuthConfig;
  /** The service's own origin: same-origin calls need no CORS. */
  ownOrigin: string;
  /** The paths that answer cross-origin calls. */
  paths: readonly RegExp[];
}

function refuse(reply: FastifyReply, origin: string) {
  // Spec Errors 6: a plain-text 403 without an OAuth error body.
  return reply.code(403).type('text/plain; charset=utf-8').header('vary', 'Origin').send(`Origin ${origin} is not allowed.`);
}

/**
 * CORS for the browser-facing Authentication API: an origin is allowed when an application lists it in its
 * Allowed Web Origins or Allowed Origins, and a request that names its client (`client_id`) only from that
 * application's origins. Exact string match, as origins are (`https://app.example.com`, no path).
 */
export function cors(app: FastifyInstance, deps: CorsDeps) {
  const applies = (request: FastifyRequest) => {
    const origin = request.headers.origin;
    if (!origin || origin === deps.ownOrigin) return undefined;
    const path = request.url.split('?')[0] ?? '';
    return deps.paths.some((pattern) => pattern.test(path)) ? origin : undefined;
  };

  app.addHook('onRequest', async (request, reply) => {
    const origin = applies(request);
    if (!origin) return;
    if (!(await deps.config.allowedOrigins()).has(origin)) return refuse(reply, origin);
    reply.header('access-control-allow-origin', origin).header('access-control-allow-credentials', 'true').header('vary', 'Origin');
    if (request.method === 'OPTIONS') {
      return reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST, PATCH, DELETE, OPTIONS')
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-max-age', '86400')
        .send();
    }
  });

  // Once the body is parsed: a request for a named client must come from that client's own origins.
  app.addHook('preHandler', async (request, reply) => {
    const origin = applies(request);
    if (!origin) return;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const clientId = typeof body.client_id === 'string' ? body.client_id : typeof query.client_id === 'string' ? query.client_id : undefined;
    if (!clientId) return;
    const client = await deps.config.client(clientId);
    if (client && ![...client.data.web_origins, ...client.data.allowed_origins].includes(origin)) return refuse(reply, origin);
  });
}
