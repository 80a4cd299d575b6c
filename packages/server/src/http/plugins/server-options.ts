import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/load.js';
import type { TrustProxy } from '../../config/trust-proxy.js';
import { nestedDeeperThan } from '../../text/json-depth.js';

/** The largest request body: far above any real request, far below what would strain the process. */
export const BODY_LIMIT_BYTES = 256 * 1024;

/**
 * The deepest JSON body accepted. Real requests nest a handful of levels (metadata may nest 10 inside its field);
 * a body of 256 KiB could otherwise nest 100,000 levels, and such a value overflows the stack of JSON.stringify
 * (and of any recursive walk) a few thousand levels down: stored, it would make every read of it fail.
 */
export const MAX_BODY_DEPTH = 32;

/** Code of the error a too deeply nested body raises; every surface answers it with a 400 in its own shape. */
export const JSON_TOO_DEEP = 'LK_JSON_TOO_DEEP';

class JsonTooDeepError extends Error {
  readonly code = JSON_TOO_DEEP;
  readonly statusCode = 400;
  constructor() {
    super(`The JSON body is nested more than ${MAX_BODY_DEPTH} levels deep.`);
  }
}

/** Fastify's JSON parser (with its prototype-poisoning checks), refusing bodies nested deeper than MAX_BODY_DEPTH. */
export function limitJsonDepth(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parse(request, body.toString(), (error: Error | null, value?: unknown) => {
      if (error) return done(error, undefined);
      if (nestedDeeperThan(value, MAX_BODY_DEPTH)) return done(new JsonTooDeepError(), undefined);
      return done(null, value);
    });
  });
}

/**
 * The server's limits on slow clients, as Node's HTTP server takes them. Node's own (headers 60 s, whole request
 * 300 s) let a few hundred slow connections hold a node for minutes. There is no socket inactivity timeout on top:
 * the request timeout already bounds what a client sends, and an inactivity timeout would also cut a request
 * whose answer takes long to compute.
 */
export function serverTimeouts(config: Pick<Config, 'timeouts'>) {
  const { headersSeconds, requestSeconds, keepAliveSeconds } = config.timeouts;
  return {
    headersTimeout: headersSeconds * 1000,
    requestTimeout: requestSeconds * 1000,
    keepAliveTimeout: keepAliveSeconds * 1000,
    // Node compares the headers and request timeouts against the clock only this often (30 s by default, which
    // would let a 10 s headers timeout run to 40 s). The check walks the connections that are mid-request.
    connectionsCheckingInterval: 1000,
  };
}

/**
 * LATCHKEY_TRUST_PROXY as Fastify's `trustProxy`. Fastify no longer takes a hop count (it cannot tell a proxy's
 * connection from a client's); as the operator's choice it becomes the rule that the nearest `hops` addresses
 * (the connection's, then X-Forwarded-For from the right) are proxies, and the next one is the client.
 */
export function trustedProxies(setting: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}
