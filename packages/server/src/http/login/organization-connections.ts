import type { LoginTransaction } from '../../oauth/authorize/transaction.js';
import type { Registry } from '../../registry.js';

/**
 * The connections of `enabled` the login may use: in a login to an organization, only the organization's (the
 * application must have them enabled too).
 */
export async function usableConnections<T extends { name: string }>(registry: Registry, transaction: LoginTransaction, enabled: readonly T[]): Promise<T[]> {
  const organization = transaction.request.organization;
  if (organization === undefined) return [...enabled];
  const names = await registry.organizations.connectionNames(organization);
  return enabled.filter((connection) => names.has(connection.name));
}
