import type { FastifyInstance } from 'fastify';
import type { Registry } from '../../registry.js';
import { bearerVerifier, type BearerAuth } from './bearer-auth.js';
import { rateLimits } from '../plugins/rate-limits.js';
import { ManagementError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Management routes: the token needs any one of these scopes. Omitted on public routes. */
    scopes?: readonly string[];
  }
  interface FastifyRequest {
    auth: BearerAuth | null;
  }
}

/**
 * Where the Management API enforces its rate limit and its scopes, before any route runs and in this order:
 * rate limit (429) -> bearer token (401) -> scopes (403). The limit is one budget for the whole tenant, as on the
 * platform; a route declares the scopes it accepts in its `config.scopes`, and a token needs any one of them.
 */
export function enforceScopesAndLimits(app: FastifyInstance, registry: Registry) {
  const verify = bearerVerifier({
    keys: registry.keys,
    issuerClaim: registry.issuerClaim,
    audience: registry.managementAudience,
    grantRevocations: registry.grantRevocations,
  });
  app.decorateRequest('auth', null);

  rateLimits(app, {
    surface: 'management',
    countAs: () => ({ limiter: registry.managementLimiter, key: registry.tenantId }),
    async reject(_reply, decision) {
      throw new ManagementError(429, 'Global limit has been reached', 'too_many_requests', { 'retry-after': String(decision.retryAfterSeconds) });
    },
  }, registry.metrics);

  app.addHook('onRequest', async (request) => {
    const scopes = request.routeOptions.config.scopes;
    if (scopes === undefined) return;
    request.auth = await verify(request.headers.authorization);
    const granted = request.auth.scopes;
    if (!scopes.some((scope) => granted.has(scope))) {
      throw new ManagementError(403, `Insufficient scope, expected any of: ${scopes.join(',')}`, 'insufficient_scope');
    }
  });
}
