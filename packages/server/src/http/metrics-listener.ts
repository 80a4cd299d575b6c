import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Metrics } from '../services/metrics.js';

export interface MetricsListener {
  /** `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/**
 * The Prometheus endpoint, `GET /metrics`, on a listener of its own (LATCHKEY_METRICS_PORT): it is never
 * reachable through the public port by accident, and a firewall or a NetworkPolicy can open it to the scraper
 * alone. Anything else on it is a 404. Scrapes are not rate limited and not counted in the request metrics.
 */
export async function startMetricsListener(options: { metrics: Pick<Metrics, 'scrape'>; port: number; host: string; log: Pick<Logger, 'warn'> }): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found: the metrics are at GET /metrics\n');
      return;
    }
    options.metrics.scrape().then(
      ({ contentType, text }) => response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) => {
        options.log.warn({ err: error }, 'metrics scrape failed');
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n');
      },
    );
  });
  // A scraper keeps its connection open between scrapes; shutdown must not wait for it.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
