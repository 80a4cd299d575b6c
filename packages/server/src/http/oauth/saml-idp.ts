import { requestOrigin } from '../request-origin.js';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sessionServes } from '../../oauth/authorize/flow.js';
import type { AuthorizeRequest } from '../../oauth/authorize/request.js';
import type { CachedClient } from '../../services/config-cache.js';
import { parseAuthnRequest, SamlRequestRefused, type ParsedAuthnRequest } from '../../oauth/saml/identity-provider.js';
import { samlSingleLogout } from '../../oauth/saml/single-logout.js';
import type { Registry } from '../../registry.js';
import type { SamlAddon } from '../../services/clients.js';
import { sessionHandle, setTransactionCookie } from '../login/cookies.js';
import { sendErrorPage } from '../login/pages.js';
import { authorizeDeps } from '../login/transaction-context.js';
import { entryScreenUrl } from '../login/entry.js';
import { sendSamlAnswer } from './saml-answer.js';
import { answerSamlLogout } from './saml-idp-logout.js';

const ClientParams = Type.Object({ client_id: Type.String({ minLength: 1, maxLength: 64, description: 'The application with the SAML2 Web App add-on.' }) }, { additionalProperties: false });
const SamlMessage = Type.Object(
  {
    SAMLRequest: Type.Optional(Type.String({ maxLength: 65536, description: 'AuthnRequest (deflated for GET, base64 for POST).' })),
    RelayState: Type.Optional(Type.String({ maxLength: 1024, description: 'Returned to the service provider unchanged.' })),
  },
  { additionalProperties: true },
);
const LogoutMessage = Type.Object(
  {
    SAMLRequest: Type.Optional(Type.String({ maxLength: 65536, description: 'LogoutRequest (deflated for GET, base64 for POST).' })),
    RelayState: Type.Optional(Type.String({ maxLength: 1024, description: 'Returned to the service provider unchanged.' })),
    SigAlg: Type.Optional(Type.String({ maxLength: 256, description: 'Signature algorithm of the HTTP-Redirect binding.' })),
    Signature: Type.Optional(Type.String({ maxLength: 4096, description: 'Signature of the HTTP-Redirect binding.' })),
    _csrf: Type.Optional(Type.String({ maxLength: 128, description: 'Token of the logout confirmation form.' })),
  },
  { additionalProperties: true },
);

/**
 * Latchkey as a SAML identity provider for applications with the SAML2 Web App add-on: `GET|POST
 * /samlp/{client_id}` (an AuthnRequest, or none for identity-provider-initiated sign-on) answers from the SSO
 * session or through the hosted login page with a signed response posted to the application's assertion
 * consumer service; `/samlp/metadata/{client_id}` and single logout at `/samlp/{client_id}/logout`.
 */
export function samlIdpRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const deps = authorizeDeps(registry);
  const logout = samlSingleLogout({ storage: registry.storage, tenantId: registry.tenantId, handleKey: registry.handleKey, now: registry.now });

  /** The application, if it has the SAML2 Web App add-on. */
  async function samlClient(clientId: string): Promise<(CachedClient & { addon: SamlAddon }) | undefined> {
    const client = await registry.oauthConfig.client(clientId);
    const addon = client?.data.addons?.samlp;
    return client && addon ? { ...client, addon } : undefined;
  }
  const notSamlClient = (reply: FastifyReply) => sendErrorPage(registry, reply, 404, 'invalid_request', 'This application is not a SAML service provider of this tenant.');

  /** The ACS URL: the request's own only if the application lists it, else the add-on's or the first callback. */
  function acsUrlFor(client: CachedClient & { addon: SamlAddon }, request: ParsedAuthnRequest | undefined): string | undefined {
    const allowed = [...(client.addon.callback ? [client.addon.callback] : []), ...client.data.callbacks];
    if (request?.acsUrl) return allowed.includes(request.acsUrl) ? request.acsUrl : undefined;
    return allowed[0];
  }

  async function signOn(message: { SAMLRequest?: string; RelayState?: string }, binding: 'redirect' | 'post', clientId: string, request: FastifyRequest, reply: FastifyReply) {
    const client = await samlClient(clientId);
    if (!client) return notSamlClient(reply);
    let parsed: ParsedAuthnRequest | undefined;
    try {
      parsed = message.SAMLRequest ? parseAuthnRequest(message.SAMLRequest, binding) : undefined;
    } catch (error) {
      if (error instanceof SamlRequestRefused) return sendErrorPage(registry, reply, 400, 'invalid_request', error.message, client);
      throw error;
    }
    const acsUrl = acsUrlFor(client, parsed);
    if (!acsUrl) return sendErrorPage(registry, reply, 400, 'invalid_request', 'The AssertionConsumerServiceURL is not one of the application’s callbacks.', client);
    const saml = { acsUrl, ...(parsed ? { requestId: parsed.id } : {}), ...(parsed?.issuer ? { requestIssuer: parsed.issuer } : {}), ...(message.RelayState !== undefined ? { relayState: message.RelayState } : {}) };
    // The hosted pages work from an authorization request: this one stands for the SAML request.
    const standIn: AuthorizeRequest = { clientId, redirectUri: acsUrl, responseTypes: ['id_token'], responseMode: 'form_post', scopes: ['openid', 'profile', 'email'], prompt: parsed?.forceAuthn ? ['login'] : [], extensions: {} };
    const session = await registry.sessions.find(sessionHandle(request));
    if (session && (await sessionServes(session, standIn, deps))) {
      // An SSO session answering a new application is a sign-in to it: the post-login Actions run (without a
      // redirect: a SAML answer has no /continue); a denial or a failure is shown instead of the answer.
      const outcome = await registry.actionTriggers.postLogin.run({
        clientId,
        userId: session.data.user_id,
        connection: session.data.connection,
        amr: session.data.amr,
        origin: requestOrigin(request),
        protocol: 'samlp',
        scopes: standIn.scopes,
        sessionId: session.data.sid,
        interactive: false,
      });
      if (outcome.kind === 'denied') return sendErrorPage(registry, reply, 403, 'access_denied', outcome.description, client);
      if (outcome.kind === 'failed') return sendErrorPage(registry, reply, 500, 'server_error', outcome.description, client);
      return sendSamlAnswer(registry, reply, client, saml, session);
    }
    const { handle, transaction } = await registry.transactions.create(standIn);
    await registry.transactions.save(handle, { ...transaction, saml });
    setTransactionCookie(registry, reply, transaction.publicId, handle);
    return reply.header('cache-control', 'no-store').redirect(await entryScreenUrl(registry, transaction), 302);
  }

  return async (app) => {
    const tags = ['saml'];
    app.get('/samlp/:client_id', { schema: { tags, summary: 'SAML sign-on (HTTP-Redirect binding, or identity-provider-initiated)', params: ClientParams, querystring: SamlMessage } }, async (request, reply) =>
      signOn(request.query, 'redirect', request.params.client_id, request, reply),
    );
    app.post('/samlp/:client_id', { schema: { tags, summary: 'SAML sign-on (HTTP-POST binding)', params: ClientParams, body: SamlMessage } }, async (request, reply) =>
      signOn(request.body, 'post', request.params.client_id, request, reply),
    );
    app.get('/samlp/metadata/:client_id', { schema: { tags, summary: 'SAML identity-provider metadata', params: ClientParams } }, async (request, reply) => {
      const client = await samlClient(request.params.client_id);
      if (!client) return notSamlClient(reply);
      return reply.type('application/samlmetadata+xml; charset=utf-8').send(await registry.samlIdp.metadata(client.clientId));
    });
    const logoutSummary = 'SAML single logout: a LogoutRequest signed by the application’s registered certificate, else after the user confirms';
    app.get('/samlp/:client_id/logout', { schema: { tags, summary: `${logoutSummary} (HTTP-Redirect binding)`, params: ClientParams, querystring: LogoutMessage } }, async (request, reply) => {
      const client = await samlClient(request.params.client_id);
      return client ? answerSamlLogout(registry, logout, client, request.query, 'redirect', request, reply) : notSamlClient(reply);
    });
    app.post('/samlp/:client_id/logout', { schema: { tags, summary: `${logoutSummary} (HTTP-POST binding, and the confirmation form)`, params: ClientParams, body: LogoutMessage } }, async (request, reply) => {
      const client = await samlClient(request.params.client_id);
      return client ? answerSamlLogout(registry, logout, client, request.body, 'post', request, reply) : notSamlClient(reply);
    });
  };
}
