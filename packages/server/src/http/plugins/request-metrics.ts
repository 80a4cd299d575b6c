import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../../services/metrics.js';

/** The route label of a request no route matched (a 404): one series for all of them, whatever the URL. */
export const UNMATCHED_ROUTE = '(unmatched)';

/**
 * Counts every answer and its latency by method, route pattern (`/api/v2/users/:id`, never the URL itself) and
 * status code. Added on the root instance before the surfaces, so it sees every route, refusals included.
 */
export function requestMetrics(app: FastifyInstance, metrics: Pick<Metrics, 'observeRequest'>) {
  // A callback hook, not an async one: it runs on every request, and a promise per request costs for nothing.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest({
      method: request.method,
      route: request.routeOptions.url ?? UNMATCHED_ROUTE,
      statusCode: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
    done();
  });
}
