import type { FastifyReply } from 'fastify';
import type { LoginTransaction } from '../../oauth/authorize/transaction.js';
import type { CachedClient } from '../../services/config-cache.js';
import { samlAudience } from '../../oauth/saml/identity-provider.js';
import type { Registry } from '../../registry.js';
import type { Session } from '../../services/sessions.js';
import { userView } from '../../services/users.js';
import { sendErrorPage } from '../login/pages.js';
import { sendAnswer } from './answer-pages.js';

/** Posts a signed SAML response for the session's user to the application's assertion consumer service. */
export async function sendSamlAnswer(registry: Registry, reply: FastifyReply, client: CachedClient, saml: NonNullable<LoginTransaction['saml']>, session: Session) {
  const record = await registry.storage.users.get(registry.tenantId, session.data.user_id);
  if (!record) return sendErrorPage(registry, reply, 400, 'access_denied', 'The user no longer exists.', client);
  await registry.sessions.addClient(session, client.clientId);
  const addon = client.data.addons?.samlp ?? {};
  const samlResponse = await registry.samlIdp.response({
    addon,
    acsUrl: saml.acsUrl,
    audience: samlAudience(addon, client.data.callbacks, saml.acsUrl, saml.requestIssuer),
    inResponseTo: saml.requestId,
    user: userView(record) as unknown as Record<string, unknown> & { user_id: string },
    sessionIndex: session.data.sid,
    authnInstant: new Date(session.data.auth_time * 1000),
  });
  const fields = { SAMLResponse: samlResponse, ...(saml.relayState !== undefined ? { RelayState: saml.relayState } : {}) };
  return sendAnswer(reply, { kind: 'form_post', action: saml.acsUrl, fields });
}
