import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorize, type AuthorizeOutcome } from '../../oauth/authorize/flow.js';
import type { Registry } from '../../registry.js';
import { entryScreenUrl } from '../login/entry.js';
import { clearCoVerifierCookie, coVerifier, sessionHandle, setSessionCookie, setTransactionCookie } from '../login/cookies.js';
import { sendErrorPage } from '../login/pages.js';
import { authorizeDeps } from '../login/transaction-context.js';
import { sendAuthorizationStep } from '../login/authorization-step.js';
import { sendAnswer } from './answer-pages.js';
import { sendVerificationPage } from './cross-origin-verification.js';
import { requestOrigin } from '../request-origin.js';

const text = (description: string) => Type.Optional(Type.String({ description }));

/** Documented for the OpenAPI document; anything else is tolerated (ext-* parameters, the library's telemetry). */
export const AuthorizeParams = Type.Object(
  {
    client_id: text('The application.'),
    redirect_uri: text("Where the answer goes; exactly one of the application's Allowed Callback URLs."),
    response_type: text('code, token, id_token or a combination (space-separated).'),
    response_mode: text('query, fragment, form_post or web_message.'),
    scope: text('Space-separated: openid profile email offline_access and API scopes.'),
    audience: text('The API the access token is for.'),
    state: text('Returned unchanged.'),
    nonce: text('Required when an ID token comes from this endpoint; echoed in it.'),
    prompt: text('none (never show a page) or login (always log in again).'),
    max_age: text('Seconds since the last login after which the user must log in again.'),
    login_hint: text('Prefills the login form.'),
    login_ticket: text('From /co/authenticate: completes a cross-origin login without a page.'),
    screen_hint: text('signup shows the signup page first.'),
    ui_locales: text('Preferred page languages.'),
    acr_values: text('http://schemas.openid.net/pape/policies/2007/06/multi-factor asks for a second factor.'),
    connection: text('Log in with this connection.'),
    code_challenge: text('PKCE challenge (S256).'),
    code_challenge_method: text('S256; plain is refused.'),
  },
  { additionalProperties: true },
);

/** Turns the outcome of an authorization request into the browser's answer (page, redirect, cookies). */
export async function sendOutcome(registry: Registry, reply: FastifyReply, outcome: AuthorizeOutcome, raw: Record<string, unknown>) {
  switch (outcome.kind) {
    case 'untrusted':
      return sendErrorPage(registry, reply, 400, outcome.error, outcome.description);
    case 'answer':
      return sendAuthorizationStep(registry, reply, outcome.answer);
    case 'signed_in':
      clearCoVerifierCookie(registry, reply);
      await setSessionCookie(registry, reply, outcome.sessionHandle);
      return sendAuthorizationStep(registry, reply, outcome.answer);
    case 'verify': {
      // Asked again by GET with the same parameters once the verifier is our own cookie.
      const retry = new URLSearchParams(Object.entries(raw).flatMap(([name, value]) => (typeof value === 'string' && name !== 'co_verification' ? [[name, value]] : [])));
      return sendVerificationPage(reply, {
        crossOriginLoc: outcome.crossOriginLoc,
        ownOrigin: new URL(registry.issuer).origin,
        coId: outcome.coId,
        loginTicket: String(raw.login_ticket),
        retryUrl: `/authorize?${retry.toString()}`,
      });
    }
    case 'upstream':
      setTransactionCookie(registry, reply, outcome.transaction.publicId, outcome.handle);
      return sendAnswer(reply, outcome.answer);
    case 'login': {
      setTransactionCookie(registry, reply, outcome.transaction.publicId, outcome.handle);
      return reply.header('cache-control', 'no-store').redirect(await entryScreenUrl(registry, outcome.transaction), 302);
    }
  }
}

export function authorizeRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const deps = authorizeDeps(registry);

  async function handle(raw: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply) {
    const browser = { sessionHandle: sessionHandle(request), coVerifier: coVerifier(request), verificationFailed: raw.co_verification === 'failed', origin: requestOrigin(request) };
    return sendOutcome(registry, reply, await authorize(raw, browser, deps), raw);
  }

  return async (app) => {
    // A malformed request is still answered with the error page, not the API's JSON.
    for (const method of ['GET', 'POST'] as const) {
      app.route({
        method,
        url: '/authorize',
        attachValidation: true,
        schema: {
          tags: ['authentication'],
          summary: method === 'GET' ? 'Authorization endpoint' : 'Authorization endpoint (form post)',
          ...(method === 'GET' ? { querystring: AuthorizeParams } : { body: AuthorizeParams }),
        },
        handler: async (request, reply) =>
          request.validationError
            ? sendErrorPage(registry, reply, 400, 'invalid_request', 'Each parameter may be given once, as text.')
            : handle((method === 'GET' ? request.query : request.body) as Record<string, unknown>, request, reply),
      });
    }
  };
}
