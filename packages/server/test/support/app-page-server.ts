import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createRequire } from 'node:module';

/**
 * An application's own pages on a real socket, on another site than Latchkey (127.0.0.1 vs localhost): every
 * path serves a page that loads the official browser library (npm auth0-js v10, unmodified) and creates
 * `window.webAuth` (the test drives it with page.evaluate); `/verify` is the application's cross-origin
 * verification page, which only calls the library's `crossOriginVerification()`. With `tls`, served over HTTPS.
 */
export async function startAppPages(
  webAuthOptions: () => Record<string, unknown>,
  tls?: { cert: Buffer; key: Buffer },
): Promise<{ origin: string; close(): Promise<void> }> {
  const library = readFileSync(createRequire(import.meta.url).resolve('auth0-js/dist/auth0.min.js'));
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://app').pathname;
    if (path === '/auth0.min.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      response.end(library);
      return;
    }
    const verify = path === '/verify' ? 'window.webAuth.crossOriginVerification();' : '';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(
      `<!DOCTYPE html><html><head><title>app</title><script src="/auth0.min.js"></script></head><body><p id="path">${path.replace(/[^a-z/-]/g, '')}</p>` +
        `<script>window.webAuth = new auth0.WebAuth(${JSON.stringify(webAuthOptions())});${verify}</script></body></html>`,
    );
  };
  const server: Server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { origin: `${tls ? 'https' : 'http'}://127.0.0.1:${address.port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
