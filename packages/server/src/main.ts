import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config/load.js';
import { startMetricsListener } from './http/metrics-listener.js';
import { createRegistry } from './registry.js';

/**
 * How long a shutdown waits for the requests in flight (a login hashing its password, a token being signed).
 * Below the 30 s an orchestrator such as Kubernetes grants by default before it kills the process.
 */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Stops accepting connections and waits for the requests in flight to be answered, at most `graceMs`; then the
 * connections still open are cut, so that a request that hangs cannot hold the shutdown forever.
 */
async function drain(app: FastifyInstance, graceMs: number, log: Pick<Logger, 'warn'>): Promise<void> {
  const closed = app.close();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
  });
  const outcome = await Promise.race([closed.then(() => 'closed' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    log.warn({ graceMs }, 'requests still in flight when the shutdown grace period ended; their connections are closed');
    app.server.closeAllConnections();
    await closed;
  }
}

export interface Serving {
  url: string;
  /** `http://host:port/metrics` when LATCHKEY_METRICS_PORT is set. */
  metricsUrl: string | undefined;
  delivery: { email: string; sms: string };
  /**
   * Graceful shutdown: stop accepting, answer the requests in flight (at most SHUTDOWN_GRACE_MS), close the
   * metrics listener, then the registry (which flushes what it buffers and closes the database last).
   */
  close(): Promise<void>;
}

/** env -> config -> registry -> app -> listen. Returns a function that shuts everything down. */
export async function serve(config: Config): Promise<Serving> {
  const registry = await createRegistry(config);
  const https = config.tls ? { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } : undefined;
  const app = await buildApp(registry, https ? { https } : {});
  // Before the public port: a metrics port that is taken stops the start before anything is served.
  const metrics = config.metrics ? await startMetricsListener({ metrics: registry.metrics, port: config.metrics.port, host: config.metrics.host, log: registry.log }) : undefined;
  await app.listen({ port: config.port, host: config.host });
  const scheme = https ? 'https' : 'http';
  const url = `${scheme}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  return {
    url,
    metricsUrl: metrics?.url,
    delivery: registry.delivery.description,
    async close() {
      await drain(app, SHUTDOWN_GRACE_MS, registry.log);
      await metrics?.close();
      await registry.close();
    },
  };
}
