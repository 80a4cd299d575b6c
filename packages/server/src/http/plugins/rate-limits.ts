import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics, RateLimitedSurface } from '../../services/metrics.js';
import { UNMATCHED_ROUTE } from './request-metrics.js';
import type { RateLimitDecision, RateLimiter } from '../../services/rate-limiter.js';

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

/** How one surface counts its requests; the hook itself is the same for every surface. */
export interface RateLimitPolicy {
  /** The surface, as the refusals metric names it. */
  surface: RateLimitedSurface;
  /** The limiter a request counts against and the key it counts under, or undefined when it is not counted. */
  countAs(request: FastifyRequest): { limiter: RateLimiter; key: string } | undefined;
  /** Answers a request over the limit in the surface's own error family (send, or throw for its error handler). */
  reject(reply: FastifyReply, decision: RateLimitDecision): Promise<unknown>;
}

/**
 * The rate-limit hook of a surface, added before its other checks (bearer token, scopes, schema) so a flood is
 * refused before it costs them; every counted answer carries the X-RateLimit headers (the platform's clients pace
 * themselves by them), refused ones included.
 */
export function rateLimits(app: FastifyInstance, policy: RateLimitPolicy, metrics: Pick<Metrics, 'rateLimitRefusals'>) {
  app.addHook('onRequest', async (request, reply) => {
    const counted = policy.countAs(request);
    if (!counted) return;
    const decision = await counted.limiter.consume(counted.key);
    reply.headers({
      'x-ratelimit-limit': String(decision.limit),
      'x-ratelimit-remaining': String(decision.remaining),
      'x-ratelimit-reset': String(decision.reset),
    });
    if (decision.allowed) return;
    metrics.rateLimitRefusals.inc({ surface: policy.surface, route: request.routeOptions.url ?? UNMATCHED_ROUTE });
    return policy.reject(reply, decision);
  });
}
