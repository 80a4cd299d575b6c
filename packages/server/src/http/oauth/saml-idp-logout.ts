import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CachedClient } from '../../services/config-cache.js';
import { logoutRequestId, SamlRequestRefused } from '../../oauth/saml/identity-provider.js';
import type { SamlSingleLogout } from '../../oauth/saml/single-logout.js';
import type { Registry } from '../../registry.js';
import type { SamlAddon } from '../../services/clients.js';
import { html } from '../../text/html.js';
import { clearSessionCookie, sessionHandle } from '../login/cookies.js';
import { sendErrorPage } from '../login/pages.js';
import { formForged } from '../login/transaction-context.js';
import { logoutEvent } from './logout-event.js';

export interface LogoutFields {
  SAMLRequest?: string | undefined;
  RelayState?: string | undefined;
  /** The confirmation form's token (present only when the user submits our confirmation page). */
  _csrf?: string | undefined;
}

/** The query string as the browser sent it: the redirect binding's signature covers these exact bytes. */
function rawQuery(request: FastifyRequest): string {
  const at = request.url.indexOf('?');
  return at < 0 ? '' : request.url.slice(at + 1);
}

/**
 * The page that asks before logging out: nothing changes until the user submits its form, whose token only
 * the browser holding the session cookie can know. It runs no script and cannot be framed.
 */
function confirmationPage(reply: FastifyReply, client: CachedClient, fields: Record<string, string>) {
  const inputs = Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  const action = `/samlp/${encodeURIComponent(client.clientId)}/logout`;
  const page = html`${[
    html`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Log out</title></head>`,
    html`<body><main><h1>Log out?</h1><p>Logging out of ${client.data.name} ends your session here, for every application that uses it.</p>`,
    html`<form method="post" action="${action}">${inputs}<button type="submit">Log out</button></form></main></body></html>`,
  ]}`;
  return reply
    .code(200)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', `default-src 'none'; base-uri 'none'; frame-ancestors 'none'`)
    .send(String(page));
}

/**
 * `GET|POST /samlp/{client_id}/logout`. With the application's certificate registered, only a LogoutRequest it
 * signed ends the session; without, a confirmation page does (single logout by a plain link would let any site
 * end the user's session). Then the session ends and the service provider gets its LogoutResponse.
 */
export async function answerSamlLogout(
  registry: Registry,
  logout: SamlSingleLogout,
  client: CachedClient & { addon: SamlAddon },
  fields: LogoutFields,
  binding: 'redirect' | 'post',
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const signingCert = client.addon.signingCert;
  // A request that cannot be read, or is not signed as it must be, is refused before anything changes.
  let inResponseTo: string | undefined;
  try {
    if (signingCert !== undefined) {
      if (!fields.SAMLRequest) throw new SamlRequestRefused('This application’s logout requests must be signed: a SAMLRequest is required.');
      const message = binding === 'redirect' ? { binding, rawQuery: rawQuery(request) } : { binding, samlRequest: fields.SAMLRequest };
      inResponseTo = await logout.verifySigned(client.clientId, signingCert, message);
    } else if (fields.SAMLRequest) {
      inResponseTo = logoutRequestId(fields.SAMLRequest, binding === 'redirect' ? true : 'auto');
    }
  } catch (error) {
    if (error instanceof SamlRequestRefused) return sendErrorPage(registry, reply, 400, 'invalid_request', error.message, client);
    throw error;
  }
  if (signingCert !== undefined) return endSession(registry, client, fields.RelayState, inResponseTo, request, reply);
  const handle = sessionHandle(request);
  const session = handle ? await registry.sessions.find(handle) : undefined;
  // Without a session there is nothing to end, and nothing a forged link could take away.
  if (!handle || !session) return endSession(registry, client, fields.RelayState, inResponseTo, request, reply);
  if (binding === 'post' && fields._csrf !== undefined) {
    if (!logout.confirmationValid(handle, fields._csrf)) return formForged(registry, reply, client);
    return endSession(registry, client, fields.RelayState, inResponseTo, request, reply);
  }
  const carried = { ...(fields.SAMLRequest ? { SAMLRequest: fields.SAMLRequest } : {}), ...(fields.RelayState !== undefined ? { RelayState: fields.RelayState } : {}) };
  return confirmationPage(reply, client, { ...carried, _csrf: logout.confirmationToken(handle) });
}

/** Ends the browser's session and answers the service provider's logout URL with a LogoutResponse. */
async function endSession(registry: Registry, client: CachedClient & { addon: SamlAddon }, relayState: string | undefined, inResponseTo: string | undefined, request: FastifyRequest, reply: FastifyReply) {
  const ended = await registry.sessions.end(sessionHandle(request));
  clearSessionCookie(registry, reply);
  if (ended) registry.events.record({ ...logoutEvent(request, ended), client_id: client.clientId });
  const callback = client.addon.logout?.callback;
  if (!callback) return reply.type('text/plain; charset=utf-8').header('cache-control', 'no-store').send('You are logged out.');
  const url = new URL(callback);
  url.searchParams.set('SAMLResponse', registry.samlIdp.logoutResponse(callback, inResponseTo));
  if (relayState !== undefined) url.searchParams.set('RelayState', relayState);
  return reply.header('cache-control', 'no-store').redirect(url.toString(), 302);
}
