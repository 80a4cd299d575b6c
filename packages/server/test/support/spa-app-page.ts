import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';

/** The platform's SPA SDK (npm `@auth0/auth0-spa-js`), its UMD build, unmodified: the page's global `auth0`. */
const SDK_SCRIPT = readFileSync(createRequire(import.meta.url).resolve('@auth0/auth0-spa-js/dist/auth0-spa-js.production.js'));

/**
 * The application's pages on 127.0.0.1 (another origin than Latchkey): every path loads the SDK and creates
 * `window.auth0Client` with the options given (read at each request); the test drives it with page.evaluate.
 */
export async function startSpaApp(clientOptions: () => Record<string, unknown>): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://app').pathname;
    if (path === '/auth0-spa-js.production.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      response.end(SDK_SCRIPT);
      return;
    }
    if (path === '/favicon.ico') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(
      '<!DOCTYPE html><html><head><title>SPA</title><script src="/auth0-spa-js.production.js"></script></head><body>' +
        `<script>window.auth0Client = new auth0.Auth0Client(${JSON.stringify(clientOptions())});</script></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

