import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ReadinessReport } from '../services/readiness.js';
import { RETRY_AFTER_SECONDS } from './unavailable.js';

/** Probes send nothing: a query string is refused (400) rather than ignored, as on every other route. */
const NoQuery = Type.Object({}, { additionalProperties: false });

const Checks = Type.Object({ database: Type.Union([Type.Literal('up'), Type.Literal('down')]), redis: Type.Optional(Type.Union([Type.Literal('up'), Type.Literal('down')])) });

/**
 * Route options shared by the probes. They are registered outside the API surfaces, so no rate limit counts them
 * (a load balancer probing every second must never be refused), and their request lines are not logged even at
 * LOG_LEVEL=debug (`logLevel: 'warn'`): one line per probe would bury the requests worth reading.
 */
const PROBE = { logLevel: 'warn', schema: { hide: true, querystring: NoQuery } } as const;

/**
 * Health checks for load balancers and orchestrators:
 * - `GET /testall`: `200 OK` in text, as the platform answers it (its status checks use it).
 * - `GET /health/live`: the process runs and its event loop turns; restart it only when this fails.
 * - `GET /health/ready`: the database answers, and Redis when REDIS_URL is set; otherwise 503 with the checks, and a
 *   Retry-After as on every answer during an outage (http/unavailable.ts). Take the node out of rotation meanwhile;
 *   it serves again by itself once they are back. During shutdown (SIGTERM) the listener stops accepting and a
 *   request on a kept-alive connection is answered 503, so a draining node leaves the rotation at once.
 */
export function healthRoutes(ready: () => Promise<ReadinessReport>): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/testall', PROBE, async (_request, reply) => reply.header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('OK'));

    app.get('/health/live', PROBE, async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));

    app.get(
      '/health/ready',
      { ...PROBE, schema: { ...PROBE.schema, response: { 200: Type.Object({ status: Type.Literal('ok'), checks: Checks }), 503: Type.Object({ status: Type.Literal('unavailable'), checks: Checks }) } } },
      async (_request, reply) => {
        const report = await ready();
        reply.header('cache-control', 'no-store');
        if (report.ready) return reply.code(200).send({ status: 'ok' as const, checks: report.checks });
        return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).send({ status: 'unavailable' as const, checks: report.checks });
      },
    );
  };
}
