import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { html } from '../../text/html.js';

const TicketQuery = Type.Object({ ticket: Type.String({ minLength: 1, maxLength: 128 }) });

function page(title: string, text: string): string {
  const head = html`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>`;
  return String(html`${head}<body><main><h1>${title}</h1><p role="status">${text}</p></main></body></html>`);
}

/** `GET /u/unblock?ticket=`: the link of the blocked-account e-mail lifts that block, once. */
export function unblockRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/u/unblock', { attachValidation: true, schema: { tags: ['hosted pages'], summary: 'Unblock an account (e-mailed link)', querystring: TicketQuery } }, async (request, reply) => {
      const done = !request.validationError && (await registry.loginProtection.unblockWithTicket(request.query.ticket));
      reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .header('content-security-policy', "default-src 'none'; base-uri 'none'; frame-ancestors 'none'")
        .header('x-frame-options', 'DENY');
      return done
        ? reply.code(200).send(page('Account unblocked', 'You can log in again from this device. If you did not cause the failed attempts, change your password.'))
        : reply.code(400).send(page('Link not valid', 'This link has expired or was already used.'));
    });
  };
}
