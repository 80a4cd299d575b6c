import type { FastifyPluginAsync } from 'fastify';

/** A key on a round badge, the service's icon; SVG, which every current browser takes as a favicon. */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/><circle cx="11" cy="16" r="5" fill="none" stroke="#fff" stroke-width="3"/><path d="M16 16h11m-4 0v5m4-5v4" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>`;

/**
 * `GET /favicon.ico`: browsers ask for it on every page of the server. Answering with the icon (rather than a
 * 404 in the logs) costs nothing; the hosted pages also link it.
 */
export function faviconRoutes(): FastifyPluginAsync {
  return async (app) => {
    app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
      reply
        .type('image/svg+xml')
        .header('cache-control', 'public, max-age=86400')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'")
        .send(ICON),
    );
  };
}
