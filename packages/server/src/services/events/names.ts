import type { OAuthConfig } from '../config-cache.js';
import type { Storage } from '../../storage/storage.js';

/**
 * The names an event shows beside the ids its producer knows (the client's name, the connection's id and strategy,
 * the user's e-mail address or username). They are looked up when a batch is written, off the request's path, so
 * that recording an event costs a request nothing but a push onto the buffer.
 */
export interface EventNames {
  clientName(clientId: string): Promise<string | undefined>;
  connection(name: string): Promise<{ id: string; strategy: string } | undefined>;
  userName(userId: string): Promise<string | undefined>;
}

/** How long a connection's id and strategy are reused (they never change; a deleted one may linger this long). */
const CONNECTION_TTL_MS = 60_000;
/** Connections remembered at most; past this the memory starts afresh. */
const CONNECTION_ENTRIES = 1000;

/** The platform's strategy categories (`strategy_type`). */
export function strategyType(strategy: string): string {
  switch (strategy) {
    case 'auth0':
      return 'database';
    case 'email':
    case 'sms':
      return 'passwordless';
    case 'samlp':
    case 'oidc':
      return 'enterprise';
    case 'oauth2':
      return 'social';
    default:
      return '';
  }
}

export function eventNames(deps: { storage: Pick<Storage, 'connections' | 'users'>; tenantId: string; config: Pick<OAuthConfig, 'client'>; nowMs?: () => number }): EventNames {
  const nowMs = deps.nowMs ?? Date.now;
  const connections = new Map<string, { value: { id: string; strategy: string } | undefined; expires: number }>();
  return {
    async clientName(clientId) {
      return (await deps.config.client(clientId))?.data.name;
    },
    async connection(name) {
      const hit = connections.get(name);
      if (hit && hit.expires > nowMs()) return hit.value;
      const record = await deps.storage.connections.findOne(deps.tenantId, { name });
      const value = record && { id: record.id, strategy: record.data.strategy };
      if (connections.size >= CONNECTION_ENTRIES) connections.clear();
      connections.set(name, { value, expires: nowMs() + CONNECTION_TTL_MS });
      return value;
    },
    async userName(userId) {
      const user = (await deps.storage.users.get(deps.tenantId, userId))?.data;
      return user?.email ?? user?.username ?? undefined;
    },
  };
}
