import type { LoginTransaction } from '../../oauth/authorize/transaction.js';
import { organizationUsage } from '../../oauth/organization-login.js';
import type { Registry } from '../../registry.js';
import { firstScreen, MFA_ENTRY_PATH, screenUrl, type TransactionScreen } from './screens.js';
import { usableConnections } from './organization-connections.js';

/**
 * Whether a login transaction goes identifier first: when the tenant's prompt settings ask for it, and also when no
 * database connection can take a password (the request names a passwordless connection, or the application has
 * none, or, in a login to an organization, the organization has none): the identifier then decides where the code goes.
 */
export async function identifierFirstFor(registry: Registry, transaction: LoginTransaction): Promise<boolean> {
  const settings = await registry.prompts.settings();
  if (settings.identifier_first) return true;
  const databases = await usableConnections(registry, transaction, await registry.userGrants.databaseLogin.connectionsFor(transaction.request.clientId));
  const named = transaction.request.connection;
  const passwordOnly = named === undefined ? databases.length > 0 : databases.some((connection) => connection.name === named);
  return !passwordOnly;
}

/**
 * The screen a new login transaction starts on. An invitation first shows who invites the user where; a client
 * that asks for the organization before login, that screen; then the first login (or signup) screen.
 */
export async function entryScreenUrl(registry: Registry, transaction: LoginTransaction): Promise<string> {
  const { request } = transaction;
  if (transaction.mfa) return `${MFA_ENTRY_PATH}?state=${encodeURIComponent(transaction.publicId)}`;
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
  return screenUrl(firstScreen(transaction, await identifierFirstFor(registry, transaction)), transaction);
}

/**
 * The screen that stands in for `screen` in this transaction, when `screen` is not part of its flow: a transaction
 * that goes identifier first has no one-page login or signup screen (its login is `login-id` then a password or a
 * code, its signup `signup-id` then `signup-password`), so neither page is shown nor its post taken. Undefined when
 * `screen` belongs to the flow.
 */
export async function screenInPlaceOf(registry: Registry, screen: TransactionScreen | 'reset-password-request', transaction: LoginTransaction): Promise<TransactionScreen | undefined> {
  if (screen !== 'login' && screen !== 'signup') return undefined;
  if (!(await identifierFirstFor(registry, transaction))) return undefined;
  return screen === 'login' ? 'login-id' : 'signup-id';
}
