import type { LoginTransaction } from '../../oauth/authorize/transaction.js';
import type { Registry } from '../../registry.js';
import { firstScreen, screenUrl } from './screens.js';

/**
 * The screen a new login transaction starts on. Identifier first when the tenant's prompt settings ask for it,
 * and also when no database connection can take a password (the request names a passwordless connection, or
 * the application has none): the identifier then decides where the code goes.
 */
export async function entryScreenUrl(registry: Registry, transaction: LoginTransaction): Promise<string> {
  const settings = await registry.prompts.settings();
  const databases = await registry.userGrants.databaseLogin.connectionsFor(transaction.request.clientId);
  const named = transaction.request.connection;
  const passwordOnly = named === undefined ? databases.length > 0 : databases.some((connection) => connection.name === named);
  return screenUrl(firstScreen(transaction, settings.identifier_first || !passwordOnly), transaction);
}
