import type { FastifyInstance } from 'fastify';

/**
 * Graceful shutdown's part in the HTTP layer. `app.close()` (main.ts, on SIGTERM) stops accepting connections and
 * waits for the open ones to end; Fastify answers requests that still arrive on them 503 with `Connection: close`.
 * A request already running when the shutdown began is answered normally, but Node would keep its connection
 * open for the next request (until the keep-alive timeout, seconds) and the shutdown would wait for it: so from
 * then on every answer carries `Connection: close`, and its connection ends as soon as it is sent.
 */
export function closeConnectionsOnShutdown(app: FastifyInstance) {
  let draining = false;
  app.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });
}
