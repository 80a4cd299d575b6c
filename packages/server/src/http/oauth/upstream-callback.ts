import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { authorizeAuthenticated } from '../../oauth/authorize/flow.js';
import { OAuthError } from '../../oauth/errors.js';
import type { Registry } from '../../registry.js';
import { html } from '../../text/html.js';
import { sessionHandle, transactionHandle } from '../login/cookies.js';
import { sendErrorPage } from '../login/pages.js';
import { authorizeDeps, finishLogin, openTransaction, refuseLogin } from '../login/transaction-context.js';
import { sendOutcome } from './authorize.js';
import { recordFederatedRefusal } from './federated-refusal.js';
import { requestOrigin } from '../request-origin.js';

const field = (description: string, maxLength = 8192) => Type.Optional(Type.String({ maxLength, description }));

/** The provider's answer; providers add parameters of their own (`iss`, `session_state`), which are ignored. */
const Answer = Type.Object(
  {
    state: field('The login transaction (its public id).', 64),
    code: field('Authorization code (back channel).', 4096),
    id_token: field('ID token (front channel, form post).', 16384),
    error: field('Error code from the provider.', 256),
    error_description: field('Its description.', 2048),
    SAMLResponse: field('SAML response (HTTP-POST binding), base64.', 262144),
    RelayState: field('SAML relay state: the login transaction of a service-provider-initiated login.', 256),
    _resubmitted: field('Set by our own re-post of a cross-site form post.', 1),
  },
  { additionalProperties: true },
);

/**
 * A provider's form post comes from its site, so the browser leaves out our SameSite=Lax transaction cookie.
 * This page posts the same fields again from our own origin, where the cookie goes along.
 */
function resubmitPage(reply: FastifyReply, fields: Record<string, string>, action: string) {
  const nonce = randomBytes(16).toString('base64');
  const inputs = Object.entries({ ...fields, _resubmitted: '1' }).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  const page = html`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Completing your login</title></head><body><form method="post" action="${action}">${inputs}<noscript><button type="submit">Continue</button></noscript></form><script nonce="${nonce}">document.forms[0].submit();</script></body></html>`;
  return reply
    .code(200)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    // No form-action: it would also bind the redirect that answers the application, whose origin is not known here.
    .header('content-security-policy', `default-src 'none'; script-src 'nonce-${nonce}'; base-uri 'none'; frame-ancestors 'none'`)
    .send(String(page));
}

const ConnectionQuery = Type.Object(
  { connection: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'The SAML connection (its assertion consumer service).' })) },
  { additionalProperties: true },
);

/**
 * `GET|POST /login/callback`: where upstream providers answer (the query of the code flow, a form post of the
 * front channel, a SAML response with `?connection=`). A login this browser started must be in its
 * transaction cookie; a refusal goes back to the application as `access_denied`, and the transaction ends
 * either way. A SAML response with no login behind it is an identity-provider-initiated sign-on.
 */
export function upstreamCallbackRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const deps = authorizeDeps(registry);

  async function handle(answer: Record<string, unknown>, connection: string | undefined, method: 'GET' | 'POST', request: FastifyRequest, reply: FastifyReply) {
    const text = (name: string) => (typeof answer[name] === 'string' ? (answer[name] as string) : undefined);
    const samlResponse = text('SAMLResponse');
    const state = samlResponse !== undefined ? text('RelayState') : text('state');
    const held = state !== undefined && transactionHandle(request, state) !== undefined;
    if (method === 'POST' && !held && answer._resubmitted === undefined) {
      const fields = Object.fromEntries(Object.entries(answer).flatMap(([name, value]) => (typeof value === 'string' && name !== '_resubmitted' ? [[name, value]] : [])));
      return resubmitPage(reply, fields, `/login/callback${connection ? `?connection=${encodeURIComponent(connection)}` : ''}`);
    }
    if (samlResponse !== undefined && !held) return idpInitiated(samlResponse, connection, request, reply);
    if (!state) return sendErrorPage(registry, reply, 400, 'invalid_request', 'The identity provider answered without the state of a login.');
    const open = await openTransaction(registry, request, reply, state);
    if (!open) return reply;
    try {
      const user =
        samlResponse !== undefined
          ? await registry.upstream.finishSaml(open.transaction, connection ?? '', samlResponse, request.ip)
          : await registry.upstream.finish(open.transaction, { code: text('code'), id_token: text('id_token'), error: text('error'), error_description: text('error_description') }, request.ip);
      return await finishLogin(registry, request, reply, open, { ...user, path: samlResponse !== undefined ? 'upstream-saml' : 'upstream-oauth' });
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      recordFederatedRefusal(registry, request, {
        path: samlResponse !== undefined ? 'upstream-saml' : 'upstream-oauth',
        error,
        connection: open.transaction.upstream?.connection,
        clientId: open.client.clientId,
      });
      return refuseLogin(registry, reply, open, error);
    }
  }

  /** No login asked for it: the connection's default application gets the user, if the connection allows it. */
  async function idpInitiated(samlResponse: string, connection: string | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (!connection) return sendErrorPage(registry, reply, 400, 'invalid_request', 'An identity-provider-initiated SAML response must name its connection (?connection=).');
    let signedIn;
    try {
      signedIn = await registry.upstream.idpInitiatedSaml(connection, samlResponse, request.ip);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      const target = await registry.upstream.idpInitiatedTarget(connection);
      recordFederatedRefusal(registry, request, { path: 'idp-initiated-saml', error, connection: target?.connection, clientId: target?.clientId });
      return sendErrorPage(registry, reply, 400, error.error, error.description);
    }
    const outcome = await authorizeAuthenticated(signedIn.authorize, { sessionHandle: sessionHandle(request), origin: requestOrigin(request) }, deps, 'idp-initiated-saml', async () => signedIn.user);
    return sendOutcome(registry, reply, outcome, signedIn.authorize);
  }

  return async (app) => {
    const tags = ['authentication'];
    app.get('/login/callback', { schema: { tags, summary: 'Upstream provider callback (code flow)', querystring: Answer } }, async (request, reply) =>
      handle(request.query, undefined, 'GET', request, reply),
    );
    app.post(
      '/login/callback',
      { schema: { tags, summary: 'Upstream provider callback (form post, SAML assertion consumer service)', querystring: ConnectionQuery, body: Answer } },
      async (request, reply) => handle(request.body, request.query.connection, 'POST', request, reply),
    );
    app.get(
      '/samlp/metadata',
      { schema: { tags, summary: 'SAML service-provider metadata of a connection', querystring: Type.Object({ connection: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false }) } },
      async (request, reply) => {
        try {
          return reply.type('application/samlmetadata+xml; charset=utf-8').send(await registry.upstream.samlMetadata(request.query.connection));
        } catch (error) {
          if (error instanceof OAuthError) return sendErrorPage(registry, reply, 404, 'not_found', error.description);
          throw error;
        }
      },
    );
  };
}
