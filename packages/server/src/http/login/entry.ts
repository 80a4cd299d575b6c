import type { LoginTransaction } from '../../oauth/authorize/transaction.js';
import type { Registry } from '../../registry.js';
import { firstScreen, screenUrl, type TransactionScreen } from './screens.js';

/**
 * Whether a login transaction goes identifier first: when the tenant's prompt settings ask for it, and also when no
 * database connection can take a password (the request names a passwordless connection, or the application has
 * none): the identifier then decides where the code goes.
 */
export async function identifierFirstFor(registry: Registry, transaction: LoginTransaction): Promise<boolean> {
  const settings = await registry.prompts.settings();
  if (settings.identifier_first) return true;
  const databases = await registry.userGrants.databaseLogin.connectionsFor(transaction.request.clientId);
  const named = transaction.request.connection;
  const passwordOnly = named === undefined ? databases.length > 0 : databases.some((connection) => connection.name === named);
  return !passwordOnly;
}

/** The screen a new login transaction starts on. */
export async function entryScreenUrl(registry: Registry, transaction: LoginTransaction): Promise<string> {
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
