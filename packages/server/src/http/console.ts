import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import type { Registry } from '../registry.js';
import { ADMINISTRATOR_ROLE, CONSOLE_CLIENT_ID } from '../services/console-setup.js';
import { MANAGEMENT_SCOPES } from '../services/management-scopes.js';

/** The built console (packages/console, built by `npm ci` and `npm run build`): its page and its hashed assets. */
export interface ConsoleBundle {
  indexHtml: string;
  assets: ReadonlyMap<string, Buffer>;
}

/** Reads the build once; undefined when it has not been built (the route then says how to build it). */
export function loadConsoleBundle(): ConsoleBundle | undefined {
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve('@latchkey/console/package.json'));
  } catch {
    return undefined;
  }
  const dist = join(packageDir, 'dist');
  if (!existsSync(join(dist, 'index.html'))) return undefined;
  const assetsDir = join(dist, 'assets');
  // Only the files the build wrote are served, by exact name: no path from the request ever reaches the disk.
  const assets = new Map(existsSync(assetsDir) ? readdirSync(assetsDir).map((name) => [name, readFileSync(join(assetsDir, name))] as const) : []);
  return { indexHtml: readFileSync(join(dist, 'index.html'), 'utf8'), assets };
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Scripts and styles from the console's own files only; it talks to this origin alone and is never framed. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * What the console needs to sign in, in a meta tag of its page (no inline script under the CSP), and the name of
 * the role that makes its administrators (which the console marks, and warns before taking away).
 */
function pageWithSettings(indexHtml: string, registry: Pick<Registry, 'issuer' | 'managementAudience'>): string {
  const settings = { issuer: registry.issuer, clientId: CONSOLE_CLIENT_ID, audience: registry.managementAudience, scopes: MANAGEMENT_SCOPES, administratorRole: ADMINISTRATOR_ROLE };
  const meta = `<meta name="latchkey-console" content="${escapeAttribute(JSON.stringify(settings))}">`;
  return indexHtml.replace('</head>', `${meta}</head>`);
}

const AssetParams = Type.Object({ file: Type.String({ maxLength: 200 }) }, { additionalProperties: false });

/**
 * The admin console: `/admin/` and every path below it answer the single-page application's page (its own router
 * reads the path); `/admin/assets/<name>-<hash>.<ext>` are content-hashed, so they are cached for a year as immutable.
 */
export function consoleRoutes(registry: Registry, bundle: ConsoleBundle | undefined): FastifyPluginAsyncTypebox {
  return async (app) => {
    if (!bundle) registry.log.warn('the console is not built (npm run build): /admin answers 404');
    const page = bundle && pageWithSettings(bundle.indexHtml, registry);
    const notBuilt = { statusCode: 404, error: 'Not Found', message: 'The console is not built: run npm run build.' };
    const sendPage = async (_request: unknown, reply: FastifyReply) => {
      if (!page) return reply.code(404).send(notBuilt);
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('content-security-policy', CONTENT_SECURITY_POLICY)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .send(page);
    };
    app.get('/admin', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/admin/'));
    app.get('/admin/', { schema: { hide: true } }, sendPage);
    app.get('/admin/assets/:file', { schema: { hide: true, params: AssetParams } }, async (request, reply) => {
      const asset = bundle?.assets.get(request.params.file);
      if (!asset) return reply.code(404).send({ statusCode: 404, error: 'Not Found', message: 'No such file of the console.' });
      return reply
        .type(CONTENT_TYPES[extname(request.params.file)] ?? 'application/octet-stream')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .send(asset);
    });
    app.get('/admin/*', { schema: { hide: true } }, sendPage);
  };
}
