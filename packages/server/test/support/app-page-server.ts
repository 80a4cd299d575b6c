import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createRequire } from 'node:module';

/** Which browser library the application's pages load, and under which global. */
export interface AppLibrary {
  name: 'latchkey' | 'auth0-js';
  /** The global namespace (`latchkey`, `auth0`). */
  namespace: string;
  /** The script tag that loads it. */
  scriptTag: string;
}

/** The official reference library (npm auth0-js v10, unmodified), served by the application itself. */
export const REFERENCE_LIBRARY: AppLibrary = { name: 'auth0-js', namespace: 'auth0', scriptTag: '<script src="/auth0.min.js"></script>' };

/** Our library as an application loads it: from Latchkey's versioned URL, with the published SRI hash. */
export async function latchkeyLibrary(latchkeyUrl: string): Promise<AppLibrary> {
  const { version } = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@latchkey/web-auth/package.json'), 'utf8')) as { version: string };
  const published = (await (await fetch(`${latchkeyUrl}/js/latchkey/${version}/integrity.json`)).json()) as { file: string; integrity: string };
  return { name: 'latchkey', namespace: 'latchkey', scriptTag: `<script src="${published.file}" integrity="${published.integrity}" crossorigin="anonymous"></script>` };
}

/**
 * An application's own pages on a real socket, on another site than Latchkey (127.0.0.1 vs localhost): every
 * path serves a page that loads the browser library and creates `window.webAuth` (the test drives it with
 * page.evaluate); `/verify` is the application's cross-origin verification page, which only calls
 * `crossOriginVerification()` (`/verify-legacy` the same under its former name,
 * `crossOriginAuthenticationCallback()`), and `/popup-callback` the popup's redirect page, which only calls
 * `popup.callback()`. With `tls`, served over HTTPS.
 */
export async function startAppPages(
  webAuthOptions: () => Record<string, unknown>,
  tls?: { cert: Buffer; key: Buffer },
  library: AppLibrary = REFERENCE_LIBRARY,
): Promise<{ origin: string; close(): Promise<void> }> {
  const reference = readFileSync(createRequire(import.meta.url).resolve('auth0-js/dist/auth0.min.js'));
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://app').pathname;
    if (path === '/auth0.min.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      response.end(reference);
      return;
    }
    const after =
      path === '/verify'
        ? 'window.webAuth.crossOriginVerification();'
        : path === '/verify-legacy'
          ? 'window.webAuth.crossOriginAuthenticationCallback();'
          : path === '/popup-callback'
            ? 'window.webAuth.popup.callback();'
            : '';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(
      `<!DOCTYPE html><html><head><title>app</title>${library.scriptTag}</head><body><p id="path">${path.replace(/[^a-z/-]/g, '')}</p>` +
        `<script>window.webAuth = new ${library.namespace}.WebAuth(${JSON.stringify(webAuthOptions())});${after}</script></body></html>`,
    );
  };
  const server: Server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { origin: `${tls ? 'https' : 'http'}://127.0.0.1:${address.port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
