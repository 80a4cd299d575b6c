import type { LoginTransaction } from '../../oauth/authorize/transaction.js';
import { organizationUsage } from '../../oauth/organization-login.js';
import type { Registry } from '../../registry.js';
import { firstScreen, screenUrl } from './screens.js';
import { usableConnections } from './transaction-context.js';

/**
 * The screen a new login transaction starts on. An invitation first shows who invites the user where; a client
 * that asks for the organization before login, that screen. Then identifier first when the tenant's prompt
 * settings ask for it, and also when no database connection can take a password (the request names a passwordless
 * connection, or the application has none): the identifier then decides where the code goes.
 */
export async function entryScreenUrl(registry: Registry, transaction: LoginTransaction): Promise<string> {
  const { request } = transaction;
  if (request.invitation !== undefined) return screenUrl('accept-invitation', transaction);
  if (request.organization === undefined) {
    const client = await registry.oauthConfig.client(request.clientId);
    const { usage, behavior } = client ? organizationUsage(client) : { usage: 'deny', behavior: 'no_prompt' };
    if (usage === 'require' && behavior === 'pre_login_prompt') return screenUrl('organization-selection', transaction);
  }
  return loginScreenUrl(registry, transaction);
}

/** The first login (or signup) screen, once anything the organization needs is settled. */
export async function loginScreenUrl(registry: Registry, transaction: LoginTransaction): Promise<string> {
  const settings = await registry.prompts.settings();
  const databases = await usableConnections(registry, transaction, await registry.userGrants.databaseLogin.connectionsFor(transaction.request.clientId));
  const named = transaction.request.connection;
  const passwordOnly = named === undefined ? databases.length > 0 : databases.some((connection) => connection.name === named);
  return screenUrl(firstScreen(transaction, settings.identifier_first || !passwordOnly), transaction);
}
