import type { FastifyError, FastifyInstance } from 'fastify';
import { OAuthError } from '../../oauth/errors.js';
import type { Registry } from '../../registry.js';
import { isStorageUnavailable } from '../../storage/unavailable.js';
import { sendAuthenticationUnavailable } from '../unavailable.js';

/** How long, on average, an answer over the rate limit or the attack-protection limits is held back. */
export const REJECTION_DELAY_MS = 1000;

/**
 * Tarpit: a client over a limit waits before hearing so. Each of its connections then costs it about a second per
 * request instead of costing this process a full CPU share, which is what real users' logins (argon2id on the
 * same CPUs) need during an attack. The wait varies by ±25 %: with one fixed delay, an attacker's connections all
 * come back in the same instant and their requests arrive as one burst each second, which is exactly when a real
 * user's login then waits behind them (bench/attack.ts).
 */
export function tarpit(): Promise<void> {
  const delay = REJECTION_DELAY_MS * (0.75 + Math.random() / 2);
  return new Promise((resolve) => setTimeout(resolve, delay));
}

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
      await tarpit();
      return reply.code(429).header('retry-after', String(decision.retryAfterSeconds)).send({ error: 'too_many_requests', error_description: TOO_MANY_REQUESTS });
    }
  });
}

/** The Authentication API's one error family: `{error, error_description}`; unexpected errors become server_error. */
export function oauthSurface(app: FastifyInstance) {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error instanceof OAuthError) {
      // Blocked and throttled logins (too_many_attempts) are held back like rate-limited requests: an attacker who
      // is refused at once would only come back at once.
      if (error.status === 429) await tarpit();
      return reply.code(error.status).headers(error.headers).send({ error: error.error, error_description: error.description });
    }
    if (error.validation) {
      return reply.code(400).send({ error: 'invalid_request', error_description: error.message });
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ error: 'invalid_request', error_description: error.message });
    }
    if (isStorageUnavailable(error)) return sendAuthenticationUnavailable(request, reply, error);
    request.log.error({ err: error }, 'authentication API request failed');
    return reply.code(500).send({ error: 'server_error', error_description: 'The server could not complete the request.' });
  });
  app.setNotFoundHandler(async (_request, reply) => reply.code(404).send({ error: 'not_found', error_description: 'Not Found' }));
}
