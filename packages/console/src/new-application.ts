import type { Api } from './api.js';
import type { Connection, ListPage } from './types.js';

/**
 * A new application that users sign in to gets the tenant's connections switched on, as the platform's dashboard does
 * for a new application: without one its login page would offer no way in. Machine-to-machine applications sign no
 * users in and get none. Through the public API only (`PATCH /connections/{id}/clients`), one connection at a time.
 */
export async function enableConnectionsFor(api: Api, clientId: string): Promise<void> {
  const page = await api<ListPage<'connections', Connection>>('GET', '/connections?include_totals=true&per_page=100&fields=id,name,strategy');
  for (const connection of page.connections) {
    await api('PATCH', `/connections/${encodeURIComponent(connection.id)}/clients`, [{ client_id: clientId, status: true }]);
  }
}
