import type { FastifyError, FastifyInstance } from 'fastify';
import { OAuthError } from '../../oauth/errors.js';
import type { Registry } from '../../registry.js';

/** How long an answer over the rate limit is held back. */
export const REJECTION_DELAY_MS = 1000;

/** Spec, Errors 3: the 429 names the headers to look at. */
export const TOO_MANY_REQUESTS = 'Too many requests. Check the X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset headers.';

/**
 * Rate limit of the Authentication API: per endpoint (the route's path) and client IP address, counted before
 * anything else runs; every answer carries the X-RateLimit headers. Preflights are not counted.
 */
export function authRateLimit(app: FastifyInstance, registry: Registry) {
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    const path = request.routeOptions.url ?? '(unknown)';
    const decision = await registry.authLimiter(path).consume(request.ip);
    reply.headers({
      'x-ratelimit-limit': String(decision.limit),
      'x-ratelimit-remaining': String(decision.remaining),
      'x-ratelimit-reset': String(decision.reset),
    });
    if (!decision.allowed) {
      // Tarpit: a client over its limit waits before hearing so. Each of its connections then costs it a second
      // per request instead of costing this process a full CPU share, which is what real users' logins
      // (argon2id on the same CPUs) need during an attack (bench/attack.ts).
      await new Promise((resolve) => setTimeout(resolve, REJECTION_DELAY_MS));
      return reply.code(429).header('retry-after', String(decision.retryAfterSeconds)).send({ error: 'too_many_requests', error_description: TOO_MANY_REQUESTS });
    }
  });
}

/** The Authentication API's one error family: `{error, error_description}`; unexpected errors become server_error. */
export function oauthSurface(app: FastifyInstance) {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error instanceof OAuthError) {
      return reply.code(error.status).headers(error.headers).send({ error: error.error, error_description: error.description });
    }
    if (error.validation) {
      return reply.code(400).send({ error: 'invalid_request', error_description: error.message });
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ error: 'invalid_request', error_description: error.message });
    }
    request.log.error({ err: error }, 'authentication API request failed');
    return reply.code(500).send({ error: 'server_error', error_description: 'The server could not complete the request.' });
  });
  app.setNotFoundHandler(async (_request, reply) => reply.code(404).send({ error: 'not_found', error_description: 'Not Found' }));
}
