import type { FastifyRequest } from 'fastify';
import type { RequestOrigin } from '../services/events/event.js';

/**
 * Where a request came from, as the tenant log records it: the client's address (trust-proxy aware) and User-Agent;
 * with references to the parsed query and body for Actions' `event.request` (copied and cleaned of secrets only
 * when an action runs: oauth/action-request.ts).
 */
export function requestOrigin(request: FastifyRequest): RequestOrigin {
  return {
    ip: request.ip,
    userAgent: request.headers['user-agent'],
    details: { hostname: request.hostname, method: request.method, acceptLanguage: request.headers['accept-language'], query: request.query, body: request.body },
  };
}
