import { Type } from '@sinclair/typebox';
import { greetingName } from '../login/greeting-name.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { logoutTarget, readIdTokenHint, type IdTokenHint } from '../../oauth/logout.js';
import { logoutConfirmation } from '../../oauth/logout-confirmation.js';
import { logoutEvent } from './logout-event.js';
import type { Registry } from '../../registry.js';
import { clearSessionCookie, sessionHandle } from '../login/cookies.js';
import { sendErrorPage, sendScreen } from '../login/pages.js';
import { sameOrigin } from '../login/transaction-context.js';

const text = (description: string) => Type.Optional(Type.String({ description }));

const V2Logout = Type.Object(
  {
    returnTo: text("Where to go afterwards: one of the application's (with client_id) or the tenant's Allowed Logout URLs."),
    client_id: text('The application.'),
    federated: text('Also log out of the identity provider (accepted; Latchkey has no upstream session to end).'),
  },
  { additionalProperties: true },
);

const OidcLogout = Type.Object(
  {
    id_token_hint: text('An ID token Latchkey issued: names the application and the session.'),
    post_logout_redirect_uri: text("One of the application's Allowed Logout URLs."),
    client_id: text('The application (required with post_logout_redirect_uri unless id_token_hint names it).'),
    state: text("Returned to post_logout_redirect_uri. In the answer to the logout question: the question's token."),
    logout_hint: text('Accepted and ignored.'),
    ui_locales: text('Accepted and ignored.'),
    action: text(
      'Only in the answer to the logout question (a POST to the question page’s URL, whose query string keeps the application’s parameters): accept or deny.',
    ),
  },
  { additionalProperties: true },
);

type Params = Record<string, unknown>;

/** An RP-initiated logout request, checked: the session it names (if any), where to go afterwards, and the RP's state. */
interface OidcLogoutRequest {
  hint: IdTokenHint | undefined;
  clientId: string | undefined;
  target: string | undefined;
  state: string | undefined;
}

/** `GET /v2/logout` (the platform's) and `GET|POST /oidc/logout` (OpenID Connect RP-Initiated Logout 1.0). */
export function logoutRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const tenantLogoutUrls = async () =>
    (await registry.oauthConfig.tenantDocument())?.settings.allowed_logout_urls ?? [];
  const confirmation = logoutConfirmation(registry.handleKey);

  const loggedOut = (reply: FastifyReply) => reply.code(200).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send('OK');

  async function endSession(request: FastifyRequest, reply: FastifyReply, sid?: string) {
    const ended = await registry.sessions.end(sessionHandle(request));
    const endedBySid = sid ? await registry.sessions.endBySid(sid) : false;
    clearSessionCookie(registry, reply);
    if (ended || endedBySid) registry.events.record(logoutEvent(request, ended));
  }

  /** Reads and checks the application's parameters; a string is the reason for a 400. */
  async function readOidcLogout(params: Params): Promise<OidcLogoutRequest | string> {
    const get = (name: string) => (typeof params[name] === 'string' && params[name] !== '' ? (params[name] as string) : undefined);
    const hintToken = get('id_token_hint');
    const hint = hintToken ? await readIdTokenHint(hintToken, registry) : undefined;
    if (hintToken && !hint) return 'The id_token_hint is not an ID token issued here.';
    const clientId = get('client_id');
    if (hint && clientId && hint.clientId !== clientId) return 'The client_id does not match the audience of the id_token_hint.';
    const redirect = get('post_logout_redirect_uri');
    const owner = clientId ?? hint?.clientId;
    if (redirect && !owner) return 'post_logout_redirect_uri needs client_id or id_token_hint.';
    const target = await logoutTarget(redirect, owner, { config: registry.oauthConfig, tenantLogoutUrls });
    if (!target.ok) return target.description;
    return { hint, clientId: owner, target: target.url, state: get('state') };
  }

  /** Sends the browser to the application's logout URL, with its state. */
  function backToApplication(reply: FastifyReply, target: string, state: string | undefined) {
    const url = new URL(target);
    if (state !== undefined) url.searchParams.set('state', state);
    return reply.header('cache-control', 'no-store').redirect(url.href, 302);
  }

  const clientOf = async (logout: OidcLogoutRequest) => (logout.clientId ? await registry.oauthConfig.client(logout.clientId) : undefined);

  async function oidcLogout(params: Params, method: 'GET' | 'POST', request: FastifyRequest, reply: FastifyReply) {
    const logout = await readOidcLogout(params);
    if (typeof logout === 'string') return sendErrorPage(registry, reply, 400, 'invalid_request', logout);
    const handle = sessionHandle(request);
    const session = !logout.hint && handle ? await registry.sessions.find(handle) : undefined;
    // Without id_token_hint anyone could have sent the user here (a link, another site's form): a live session ends
    // only when the user says so, on the `logout` screen, whose answer posts back to the question's URL.
    if (handle && session) {
      // A POST's parameters move to the query string, where the question's answer finds them again.
      if (method === 'POST') return reply.header('cache-control', 'no-store').redirect(`/oidc/logout?${new URLSearchParams(stringsOf(params)).toString()}`, 303);
      const client = await clientOf(logout);
      const userName = await greetingName(registry, session.data.user_id);
      return sendScreen(registry, reply, 200, { screen: 'logout', client, action: request.url, state: confirmation.token(handle), ...(userName ? { userName } : {}) });
    }
    await endSession(request, reply, logout.hint?.sid);
    return logout.target ? backToApplication(reply, logout.target, logout.state) : loggedOut(reply);
  }

  /**
   * The user's answer to the logout question (the page's own buttons, or a tenant bundle's `confirmLogout`): it
   * counts only from a page of ours (Origin) carrying the token of this browser's session cookie. The application's
   * parameters are in the query string; the body's `state` is the question's token.
   */
  async function answerLogoutQuestion(query: Params, body: Params, request: FastifyRequest, reply: FastifyReply) {
    const { action, state: token } = body;
    const handle = sessionHandle(request);
    if (!sameOrigin(registry, request) || !handle || typeof token !== 'string' || !confirmation.valid(handle, token)) {
      return sendErrorPage(registry, reply, 403, 'invalid_request', 'The logout could not be verified, so nothing was changed. Go back to the application and log out again.');
    }
    if (action !== 'accept' && action !== 'deny') return sendErrorPage(registry, reply, 400, 'invalid_request', 'The answer to the logout question is accept or deny.');
    const logout = await readOidcLogout(query);
    if (typeof logout === 'string') return sendErrorPage(registry, reply, 400, 'invalid_request', logout);
    const client = await clientOf(logout);
    if (action === 'deny') return sendScreen(registry, reply, 200, { screen: 'logout-aborted', client });
    await endSession(request, reply, logout.hint?.sid);
    return logout.target ? backToApplication(reply, logout.target, logout.state) : sendScreen(registry, reply, 200, { screen: 'logout-complete', client });
  }

  return async (app) => {
    app.get(
      '/v2/logout',
      { attachValidation: true, schema: { tags: ['authentication'], summary: 'Log out (platform endpoint)', querystring: V2Logout } },
      async (request, reply) => {
        if (request.validationError) return sendErrorPage(registry, reply, 400, 'invalid_request', 'Each parameter may be given once, as text.');
        const target = await logoutTarget(request.query.returnTo, request.query.client_id, { config: registry.oauthConfig, tenantLogoutUrls });
        if (!target.ok) return sendErrorPage(registry, reply, 400, 'invalid_request', target.description);
        await endSession(request, reply);
        return target.url ? reply.header('cache-control', 'no-store').redirect(target.url, 302) : loggedOut(reply);
      },
    );
    const schema = { tags: ['authentication'], summary: 'Log out (OpenID Connect RP-initiated logout)' };
    const malformed = (reply: FastifyReply) => sendErrorPage(registry, reply, 400, 'invalid_request', 'Each parameter may be given once, as text.');
    app.get('/oidc/logout', { attachValidation: true, schema: { ...schema, querystring: OidcLogout } }, async (request, reply) =>
      request.validationError ? malformed(reply) : oidcLogout(request.query, 'GET', request, reply),
    );
    app.post('/oidc/logout', { attachValidation: true, schema: { ...schema, querystring: OidcLogout, body: OidcLogout } }, async (request, reply) => {
      if (request.validationError) return malformed(reply);
      return request.body.action !== undefined ? answerLogoutQuestion(request.query, request.body, request, reply) : oidcLogout(request.body, 'POST', request, reply);
    });
  };
}

/** The text parameters of a request (what a query string can carry again). */
function stringsOf(params: Params): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
