import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { logoutTarget, readIdTokenHint } from '../../oauth/logout.js';
import type { Registry } from '../../registry.js';
import { clearSessionCookie, sessionHandle } from '../login/cookies.js';
import { sendErrorPage } from '../login/pages.js';

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
    state: text('Returned to post_logout_redirect_uri.'),
    logout_hint: text('Accepted and ignored.'),
    ui_locales: text('Accepted and ignored.'),
  },
  { additionalProperties: true },
);

/** `GET /v2/logout` (the platform's) and `GET|POST /oidc/logout` (OpenID Connect RP-Initiated Logout 1.0). */
export function logoutRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const tenantLogoutUrls = async () =>
    (await registry.oauthConfig.tenantDocument())?.settings.allowed_logout_urls ?? [];

  const loggedOut = (reply: FastifyReply) => reply.code(200).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send('OK');

  async function endSession(request: FastifyRequest, reply: FastifyReply, sid?: string) {
    await registry.sessions.end(sessionHandle(request));
    if (sid) await registry.sessions.endBySid(sid);
    clearSessionCookie(registry, reply);
  }

  async function oidcLogout(params: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply) {
    const get = (name: string) => (typeof params[name] === 'string' && params[name] !== '' ? (params[name] as string) : undefined);
    const hintToken = get('id_token_hint');
    const hint = hintToken ? await readIdTokenHint(hintToken, registry) : undefined;
    if (hintToken && !hint) return sendErrorPage(registry, reply, 400, 'invalid_request', 'The id_token_hint is not an ID token issued here.');
    const clientId = get('client_id');
    if (hint && clientId && hint.clientId !== clientId) {
      return sendErrorPage(registry, reply, 400, 'invalid_request', 'The client_id does not match the audience of the id_token_hint.');
    }
    const redirect = get('post_logout_redirect_uri');
    const owner = clientId ?? hint?.clientId;
    if (redirect && !owner) return sendErrorPage(registry, reply, 400, 'invalid_request', 'post_logout_redirect_uri needs client_id or id_token_hint.');
    const target = await logoutTarget(redirect, owner, { config: registry.oauthConfig, tenantLogoutUrls });
    if (!target.ok) return sendErrorPage(registry, reply, 400, 'invalid_request', target.description);
    await endSession(request, reply, hint?.sid);
    if (!target.url) return loggedOut(reply);
    const url = new URL(target.url);
    const state = get('state');
    if (state !== undefined) url.searchParams.set('state', state);
    return reply.header('cache-control', 'no-store').redirect(url.href, 302);
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
    app.get('/oidc/logout', { attachValidation: true, schema: { ...schema, querystring: OidcLogout } }, async (request, reply) =>
      request.validationError
        ? sendErrorPage(registry, reply, 400, 'invalid_request', 'Each parameter may be given once, as text.')
        : oidcLogout(request.query, request, reply),
    );
    app.post('/oidc/logout', { attachValidation: true, schema: { ...schema, body: OidcLogout } }, async (request, reply) =>
      request.validationError
        ? sendErrorPage(registry, reply, 400, 'invalid_request', 'Each parameter may be given once, as text.')
        : oidcLogout(request.body, request, reply),
    );
  };
}
