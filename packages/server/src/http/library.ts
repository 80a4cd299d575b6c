import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Registry } from '../registry.js';

/** The built browser library (packages/web-auth, built by `npm ci` and `npm run build`). */
export interface LibraryBundle {
  version: string;
  script: Buffer;
  integrity: string;
}

/** Reads the bundle once; undefined when it has not been built (the route then says how to build it). */
export function loadLibraryBundle(): LibraryBundle | undefined {
  const packageDir = dirname(createRequire(import.meta.url).resolve('@latchkey/web-auth/package.json'));
  const scriptPath = join(packageDir, 'dist', 'latchkey.min.js');
  const integrityPath = join(packageDir, 'dist', 'integrity.json');
  if (!existsSync(scriptPath) || !existsSync(integrityPath)) return undefined;
  const { version, integrity } = JSON.parse(readFileSync(integrityPath, 'utf8')) as { version: string; integrity: string };
  return { version, script: readFileSync(scriptPath), integrity };
}

const Params = Type.Object(
  { version: Type.String({ pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$', maxLength: 32, description: 'Library version, e.g. 10.0.0.' }) },
  { additionalProperties: false },
);

/**
 * `GET /js/latchkey/<version>/latchkey.min.js`: the browser library for a script tag. A versioned URL never
 * changes, so it is cached for a year as immutable; CORS is open so that pages can load it with an SRI
 * `integrity` attribute (`crossorigin="anonymous"`), whose value `integrity.json` beside it publishes.
 */
export function libraryRoutes(registry: Registry, bundle: LibraryBundle | undefined): FastifyPluginAsyncTypebox {
  return async (app) => {
    if (!bundle) registry.log.warn('the browser library is not built (npm run build): /js/latchkey/ answers 404');
    const notFound = { statusCode: 404, error: 'Not Found', message: 'No such version of the browser library.' };
    const schema = { params: Params, hide: true };
    app.get('/js/latchkey/:version/latchkey.min.js', { schema }, async (request, reply) => {
      if (!bundle || request.params.version !== bundle.version) return reply.code(404).send(notFound);
      return reply
        .type('text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('access-control-allow-origin', '*')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('x-content-type-options', 'nosniff')
        .send(bundle.script);
    });
    app.get('/js/latchkey/:version/integrity.json', { schema }, async (request, reply) => {
      if (!bundle || request.params.version !== bundle.version) return reply.code(404).send(notFound);
      return reply
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('access-control-allow-origin', '*')
        .send({ version: bundle.version, file: `${registry.issuer}/js/latchkey/${bundle.version}/latchkey.min.js`, integrity: bundle.integrity });
    });
  };
}
