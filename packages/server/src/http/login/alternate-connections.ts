import type { LoginTransaction } from '../../oauth/authorize/transaction.js';
import type { Registry } from '../../registry.js';
import type { ConnectionData } from '../../services/connections.js';
import type { AlternateConnection } from './render/model.js';
import type { HostedScreen } from './screens.js';
import { usableConnections } from './organization-connections.js';

/** The screens that offer the application's federated connections, and take the SDK's `federatedLogin`/`federatedSignup`. */
export const FEDERATED_SCREENS: ReadonlySet<HostedScreen> = new Set(['login', 'login-id', 'login-password', 'signup', 'signup-id', 'signup-password']);

/**
 * The federated connections (OpenID Connect, OAuth 2.0, SAML) enabled for the transaction's application, which its
 * screens offer besides the database or passwordless form. None when the authorization request named a
 * connection: that connection is then the only way in, as on the platform.
 * In a login to an organization, the organization's own connections only.
 */
export async function alternateConnectionsFor(registry: Registry, transaction: LoginTransaction): Promise<ConnectionData[]> {
  if (transaction.request.connection !== undefined) return [];
  const clientId = transaction.request.clientId;
  // In a login to an organization, only the organization's.
  return usableConnections(registry, transaction, (await registry.oauthConfig.federatedConnections()).filter((connection) => connection.enabled_clients.includes(clientId)));
}

/**
 * A connection as a screen offers it. An OAuth 2.0 connection is a custom social connection on the platform, which
 * always has its button; an enterprise one (OpenID Connect, SAML) has one when `show_as_button` says so. Only
 * these public fields (and its metadata, which the platform's SDK reads) reach a page: a connection's other
 * options (its endpoints, any secret) never do.
 */
export function alternateConnection(connection: ConnectionData): AlternateConnection {
  const icon = connection.options.icon_url;
  // A document stored before connections had metadata has none.
  const metadata = (connection.metadata as Record<string, string> | undefined) ?? {};
  return {
    name: connection.name,
    strategy: connection.strategy,
    displayName: connection.display_name ?? connection.name,
    ...(typeof icon === 'string' && icon.startsWith('https://') ? { iconUrl: icon } : {}),
    showAsButton: connection.strategy === 'oauth2' || connection.show_as_button,
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}
