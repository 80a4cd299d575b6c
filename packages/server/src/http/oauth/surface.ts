import type { FastifyError, FastifyInstance } from 'fastify';
import { oauthErrorBody } from '../../oauth/error-codes.js';
import { OAuthError } from '../../oauth/errors.js';
import type { Registry } from '../../registry.js';
import { isStorageUnavailable } from '../../storage/unavailable.js';
import { rateLimits, tarpit } from '../plugins/rate-limits.js';
import { sendAuthenticationUnavailable } from '../unavailable.js';
import { originFields } from '../../services/events/event.js';
import { requestOrigin } from '../request-origin.js';

/** Spec, Errors 3: the 429 names the headers to look at. */
export const TOO_MANY_REQUESTS = 'Too many requests. Check the X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset headers.';

/**
 * Rate limit of the Authentication API: per endpoint (the route's path) and client IP address, counted before
 * anything else runs; every answer carries the X-RateLimit headers. Preflights are not counted. A refused request
 * is held back (the tarpit) before its 429.
 */
export function authRateLimit(app: FastifyInstance, registry: Registry) {
  rateLimits(app, {
    surface: 'authentication',
    countAs: (request) =>
      request.method === 'OPTIONS' ? undefined : { limiter: registry.authLimiter(request.routeOptions.url ?? '(unknown)'), key: request.ip },
    async reject(reply, decision) {
      // Logged once a minute per endpoint and address, however many requests a flood sends.
      const path = reply.request.routeOptions.url ?? '(unknown)';
      registry.events.recordOncePer(`auth:${path}\n${reply.request.ip}`, 60_000, { type: 'api_limit', description: 'Authentication API rate limit reached', ...originFields(requestOrigin(reply.request)), details: { path } });
      await tarpit();
      return reply.code(429).header('retry-after', String(decision.retryAfterSeconds)).send(oauthErrorBody('too_many_requests', TOO_MANY_REQUESTS));
    },
  }, registry.metrics);
}

/** The Authentication API's one error family: `{error, error_description}`; unexpected errors become server_error. */
export function oauthSurface(app: FastifyInstance) {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error instanceof OAuthError) {
      // Blocked and throttled logins (too_many_attempts) are held back like rate-limited requests: an attacker who
      // is refused at once would only come back at once.
      if (error.status === 429) await tarpit();
      return reply.code(error.status).headers(error.headers).send({ ...oauthErrorBody(error.error, error.description), ...error.extra });
    }
    if (error.validation) {
      return reply.code(400).send(oauthErrorBody('invalid_request', error.message));
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send(oauthErrorBody('invalid_request', error.message));
    }
    if (isStorageUnavailable(error)) return sendAuthenticationUnavailable(request, reply, error);
    request.log.error({ err: error }, 'authentication API request failed');
    return reply.code(500).send(oauthErrorBody('server_error', 'The server could not complete the request.'));
  });
  app.setNotFoundHandler(async (_request, reply) => reply.code(404).send(oauthErrorBody('not_found', 'Not Found')));
}
