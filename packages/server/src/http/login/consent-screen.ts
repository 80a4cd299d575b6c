import { requestOrigin } from '../request-origin.js';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { completeAuthorization, errorAnswer } from '../../oauth/authorize/flow.js';
import { AccessDenied } from '../../oauth/errors.js';
import type { Registry } from '../../registry.js';
import { sendAnswer } from '../oauth/answer-pages.js';
import { sendAuthorizationStep } from './authorization-step.js';
import { clearTransactionCookie } from './cookies.js';
import { greetingName, signedInUser } from './greeting-name.js';
import { sendErrorPage, sendScreen } from './pages.js';
import { ScreenForm, StateQuery } from './screen-forms.js';
import { screenUrl } from './screens.js';
import { authorizeDeps, openScreenPost, openTransaction, signedInSession, type OpenTransaction } from './transaction-context.js';

const ConsentForm = ScreenForm({});

type ConsentOf = NonNullable<OpenTransaction['transaction']['consent']>;

/**
 * The consent screen (prompt `consent`): after signing in, the user accepts or declines what the application asks
 * for. `action=accept` remembers the consent (`/api/v2/grants`) and answers the application; `action=deny` answers it
 * `access_denied`. Either ends the transaction, so an answer counts once. The screen belongs to the browser session
 * that signed in: another session in the same browser (a login elsewhere meanwhile) sends the user back to start.
 */
export function consentScreenRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const deps = authorizeDeps(registry);
  const tags = ['hosted pages'];

  const sessionGone = (reply: FastifyReply, open: OpenTransaction) =>
    sendErrorPage(registry, reply, 400, 'invalid_request', 'This consent belongs to a session that has ended. Go back to the application and start again.', open.client);

  return async (app) => {
    app.get('/u/consent', { schema: { tags, summary: 'Consent screen: what the application asks for', querystring: StateQuery } }, async (request, reply) => {
      const open = await openTransaction(registry, request, reply, request.query.state);
      if (!open) return reply;
      const consent = open.transaction.consent;
      if (!consent) return sendErrorPage(registry, reply, 400, 'invalid_request', 'This login asks for no consent.', open.client);
      if (!(await signedInSession(registry, request, consent))) return sessionGone(reply, open);
      const userName = await greetingName(registry, consent.userId);
      return sendScreen(registry, reply, 200, {
        screen: 'consent',
        client: open.client,
        transaction: open.transaction,
        action: screenUrl('consent', open.transaction),
        scopes: await registry.consents.shown(consent),
        user: await signedInUser(registry, consent.userId),
        ...(userName ? { userName } : {}),
      });
    });

    app.post(
      '/u/consent',
      { attachValidation: true, schema: { tags, summary: 'Answer the consent screen (action=accept or deny)', querystring: Type.Partial(StateQuery), body: ConsentForm } },
      async (request, reply) => {
        const open = await openScreenPost(registry, request, reply, 'consent');
        if (!open) return reply;
        const consent = open.transaction.consent as ConsentOf;
        const action = request.body.action;
        if (action !== 'accept' && action !== 'deny') {
          return reply.header('cache-control', 'no-store').redirect(screenUrl('consent', open.transaction), 303);
        }
        const session = await signedInSession(registry, request, consent);
        if (!session) return sessionGone(reply, open);
        // Only one answer counts: a second post (another tab, a replay) finds the transaction ended.
        if (!(await registry.transactions.complete(open.handle))) {
          return sendErrorPage(registry, reply, 400, 'invalid_request', 'This consent was already answered. Go back to the application.', open.client);
        }
        clearTransactionCookie(registry, reply, open.transaction.publicId);
        const authorization = open.transaction.request;
        if (action === 'deny') {
          const { responseMode, redirectUri, state } = authorization;
          return sendAnswer(reply, errorAnswer({ responseMode, redirectUri, state }, new AccessDenied('User did not authorize the request')));
        }
        await registry.consents.grant(consent.userId, open.client.clientId, consent);
        return sendAuthorizationStep(registry, reply, await completeAuthorization(authorization, open.client, session, deps, {}, requestOrigin(request)));
      },
    );
  };
}
