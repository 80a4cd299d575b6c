import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Registry } from '../registry.js';
import { DEMO_CLIENT_ID, DEMO_DATABASE_CONNECTION, DEMO_PASSWORDLESS_CONNECTION } from '../services/demo-application.js';
import { managementApiIdentifier } from '../services/resource-servers.js';
import { html, jsonForScript } from '../text/html.js';
import type { LibraryBundle } from './library.js';

const DEMO_DIR = new URL('../../demo/', import.meta.url);

const FILES: Record<string, { file: string; type: string }> = {
  '': { file: 'index.html', type: 'text/html; charset=utf-8' },
  'popup-callback.html': { file: 'popup-callback.html', type: 'text/html; charset=utf-8' },
  'app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  'popup-callback.js': { file: 'popup-callback.js', type: 'text/javascript; charset=utf-8' },
  'demo.css': { file: 'demo.css', type: 'text/css; charset=utf-8' },
};

/**
 * The development demo at `/demo/` (never registered in production): a small single-page application that
 * uses the browser library from its versioned URL, with the configuration it needs written into the page.
 * Scripts are files of our own origin only (`script-src 'self'`), so a stray inline script cannot run.
 */
export function demoRoutes(registry: Registry, bundle: LibraryBundle): FastifyPluginAsyncTypebox {
  const issuer = registry.issuer;
  const config = {
    domain: issuer,
    clientID: DEMO_CLIENT_ID,
    audience: managementApiIdentifier(issuer),
    redirectUri: `${issuer}/demo/`,
    popupRedirectUri: `${issuer}/demo/popup-callback.html`,
    databaseConnection: DEMO_DATABASE_CONNECTION,
    passwordlessConnection: DEMO_PASSWORDLESS_CONNECTION,
  };
  const library = String(html`<script src="${`/js/latchkey/${bundle.version}/latchkey.min.js`}" integrity="${bundle.integrity}" crossorigin="anonymous"></script>`);
  const contents = Object.fromEntries(
    Object.entries(FILES).map(([path, { file, type }]) => {
      let body = readFileSync(fileURLToPath(new URL(file, DEMO_DIR)), 'utf8');
      if (type.startsWith('text/html')) body = body.replace('{{CONFIG}}', jsonForScript(config)).replace('{{LIBRARY}}', library);
      return [path, { body, type }];
    }),
  );
  const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; frame-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

  return async (app) => {
    app.get('/demo', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/demo/', 302));
    app.get(
      '/demo/:file',
      { schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 64 }) }, { additionalProperties: false }) } },
      async (request, reply) => {
        const found = contents[request.params.file];
        if (!found) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
        return reply.type(found.type).header('cache-control', 'no-cache').header('content-security-policy', csp).header('x-content-type-options', 'nosniff').send(found.body);
      },
    );
  };
}
