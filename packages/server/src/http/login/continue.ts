import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { completeAuthorization } from '../../oauth/authorize/flow.js';
import type { Registry } from '../../registry.js';
import { requestOrigin } from '../request-origin.js';
import { sendAuthorizationStep } from './authorization-step.js';
import { clearTransactionCookie } from './cookies.js';
import { sendErrorPage } from './pages.js';
import { authorizeDeps, openTransaction, signedInSession } from './transaction-context.js';

const ContinueQuery = Type.Object(
  { state: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The login the user comes back to (the `state` of the redirect).' })) },
  { additionalProperties: true },
);
const ContinueBody = Type.Object(
  { state: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The login the user comes back to, when it is posted.' })) },
  { additionalProperties: true },
);

/**
 * `/continue`: where a user sent elsewhere by a post-login Action (`api.redirect.sendUserTo`) comes back, by a link
 * (GET) or a form (POST), with the redirect's `state`. Only the browser that left, with the session it left with,
 * may come back, and only once; the actions then go on from that action's `onContinuePostLogin` (which reads what
 * the other site sent in `event.request.query` / `body`), and the application is answered.
 */
export function continueRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const deps = authorizeDeps(registry);
  const tags = ['hosted pages'];

  async function resume(request: FastifyRequest, reply: FastifyReply, state: string | undefined) {
    if (!state) return sendErrorPage(registry, reply, 400, 'invalid_request', 'The state parameter is missing: go back to the application and start again.');
    const open = await openTransaction(registry, request, reply, state);
    if (!open) return reply;
    const pending = open.transaction.postLogin;
    if (!pending) return sendErrorPage(registry, reply, 400, 'invalid_request', 'This login is not waiting for the user to come back.', open.client);
    const session = await signedInSession(registry, request, pending);
    if (!session) {
      return sendErrorPage(registry, reply, 400, 'invalid_request', 'This login belongs to a session that has ended. Go back to the application and start again.', open.client);
    }
    // The user comes back once: a second visit (another tab, a replayed link) finds the transaction ended.
    if (!(await registry.transactions.complete(open.handle))) {
      return sendErrorPage(registry, reply, 400, 'invalid_request', 'This login was already continued. Go back to the application.', open.client);
    }
    clearTransactionCookie(registry, reply, open.transaction.publicId);
    const { resumeAt, actionId, tokens } = pending;
    const settled = { resume: { resumeAt, actionId, tokens, state: open.transaction.publicId }, amr: pending.amr };
    return sendAuthorizationStep(registry, reply, await completeAuthorization(open.transaction.request, open.client, session, deps, settled, requestOrigin(request)));
  }

  return async (app) => {
    app.get('/continue', { schema: { tags, summary: 'Come back to a login after a post-login Action sent the user elsewhere', querystring: ContinueQuery } }, async (request, reply) =>
      resume(request, reply, request.query.state),
    );
    app.post(
      '/continue',
      { schema: { tags, summary: 'Come back to a login with a form, after a post-login Action sent the user elsewhere', querystring: ContinueQuery, body: ContinueBody } },
      async (request, reply) => resume(request, reply, request.query.state ?? request.body.state),
    );
  };
}
