import type { FastifyRequest } from 'fastify';
import type { RequestOrigin } from '../services/events/event.js';

/** Where a request came from, as the tenant log records it: the client's address (trust-proxy aware) and User-Agent. */
export function requestOrigin(request: FastifyRequest): RequestOrigin {
  return { ip: request.ip, userAgent: request.headers['user-agent'] };
}
