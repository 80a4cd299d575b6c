import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { errorAnswer } from '../../oauth/authorize/flow.js';
import { OAuthError } from '../../oauth/errors.js';
import type { Registry } from '../../registry.js';
import { escapeHtml } from '../../text/html.js';
import { clearTransactionCookie, transactionHandle } from '../login/cookies.js';
import { sendErrorPage } from '../login/pages.js';
import { finishLogin, openTransaction } from '../login/transaction-context.js';
import { sendAnswer } from './answer-pages.js';

const field = (description: string, maxLength = 8192) => Type.Optional(Type.String({ maxLength, description }));

/** The provider's answer; providers add parameters of their own (`iss`, `session_state`), which are ignored. */
const Answer = Type.Object(
  {
    state: field('The login transaction (its public id).', 64),
    code: field('Authorization code (back channel).', 4096),
    id_token: field('ID token (front channel, form post).', 16384),
    error: field('Error code from the provider.', 256),
    error_description: field('Its description.', 2048),
    _resubmitted: field('Set by our own re-post of a cross-site form post.', 1),
  },
  { additionalProperties: true },
);

/**
 * A provider's form post comes from its site, so the browser leaves out our SameSite=Lax transaction cookie.
 * This page posts the same fields again from our own origin, where the cookie goes along.
 */
function resubmitPage(reply: FastifyReply, fields: Record<string, string>) {
  const nonce = randomBytes(16).toString('base64');
  const inputs = Object.entries({ ...fields, _resubmitted: '1' })
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  return reply
    .code(200)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    // No form-action: it would also bind the redirect that answers the application, whose origin is not known here.
    .header('content-security-policy', `default-src 'none'; script-src 'nonce-${nonce}'; base-uri 'none'; frame-ancestors 'none'`)
    .send(
      `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Completing your login</title></head><body><form method="post" action="/login/callback">${inputs}<noscript><button type="submit">Continue</button></noscript></form><script nonce="${nonce}">document.forms[0].submit();</script></body></html>`,
    );
}

/**
 * `GET|POST /login/callback`: where upstream providers answer (the query for the code flow, a form post for
 * the front channel). The browser must hold the login transaction the `state` names; a refusal goes back to
 * the application as `access_denied`, and the transaction ends either way.
 */
export function upstreamCallbackRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  async function handle(answer: Record<string, unknown>, method: 'GET' | 'POST', request: FastifyRequest, reply: FastifyReply) {
    const state = typeof answer.state === 'string' ? answer.state : '';
    if (!state) return sendErrorPage(registry, reply, 400, 'invalid_request', 'The identity provider answered without the state of a login.');
    if (method === 'POST' && !transactionHandle(request, state) && answer._resubmitted === undefined) {
      const fields = Object.fromEntries(Object.entries(answer).flatMap(([name, value]) => (typeof value === 'string' && name !== '_resubmitted' ? [[name, value]] : [])));
      return resubmitPage(reply, fields);
    }
    const open = await openTransaction(registry, request, reply, state);
    if (!('transaction' in open)) return open;
    const text = (name: string) => (typeof answer[name] === 'string' ? (answer[name] as string) : undefined);
    try {
      const user = await registry.upstream.finish(open.transaction, { code: text('code'), id_token: text('id_token'), error: text('error'), error_description: text('error_description') });
      return await finishLogin(registry, request, reply, open, user);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      await registry.transactions.complete(open.handle);
      clearTransactionCookie(registry, reply, open.transaction.publicId);
      const { responseMode, redirectUri, state: appState } = open.transaction.request;
      return sendAnswer(reply, errorAnswer({ responseMode, redirectUri, state: appState }, error));
    }
  }

  return async (app) => {
    const tags = ['authentication'];
    app.get('/login/callback', { schema: { tags, summary: 'Upstream provider callback (code flow)', querystring: Answer } }, async (request, reply) =>
      handle(request.query, 'GET', request, reply),
    );
    app.post('/login/callback', { schema: { tags, summary: 'Upstream provider callback (form post)', body: Answer } }, async (request, reply) =>
      handle(request.body, 'POST', request, reply),
    );
  };
}
