import type { TestServer } from './harness.js';
import { managementApi } from './management-api.js';

type Json = Record<string, unknown>;

/** What differs between two tenants holding the same configuration: ids, times, secrets, the server's own URLs. */
const UNCOMPARED = new Set(['id', 'client_id', 'client_secret', 'tenant', 'created_at', 'updated_at', 'built_at', 'signing_keys', 'connection_id', 'action', 'deployed_version', 'current_version', 'all_changes_deployed']);

function strip(value: unknown, server: TestServer): unknown {
  if (Array.isArray(value)) return value.map((item) => strip(item, server));
  if (typeof value === 'string') return value.replaceAll(new URL(server.url).host, '<host>');
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !UNCOMPARED.has(key))
      .map(([key, item]) => [key, strip(item, server)]),
  );
}

const byName = (a: Json, b: Json) => String(a.name ?? a.identifier ?? a.audience).localeCompare(String(b.name ?? b.identifier ?? b.audience));

/**
 * A tenant's configuration as the Management API shows it, family by family, in a form two tenants can be compared
 * in: applications are named instead of identified (in grants, connections, organizations), lists are sorted, and
 * ids, times, secrets and the server's own host are left out.
 */
export async function tenantSnapshot(server: TestServer): Promise<Record<string, unknown>> {
  const api = managementApi(server);
  const get = async (path: string) => {
    const response = await api('GET', path);
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body as unknown;
  };
  const list = async (path: string) => (await get(path)) as Json[];
  const clients = await list('/clients?is_global=false');
  const clientName = (id: unknown) => String(clients.find((client) => client.client_id === id)?.name ?? `unknown client ${String(id)}`);
  const connections = await list('/connections');
  const connectionName = (id: unknown) => String(connections.find((connection) => connection.id === id)?.name ?? `unknown connection ${String(id)}`);
  const actions = ((await get('/actions/actions')) as { actions: Json[] }).actions;
  const roles = await list('/roles');
  const organizations = await list('/organizations');
  const settings = (await get('/tenants/settings')) as Json;
  const locales = (settings.enabled_locales as string[] | undefined) ?? ['en'];

  const snapshot = {
    tenant: settings,
    clients: clients.sort(byName),
    resourceServers: (await list('/resource-servers')).sort(byName),
    clientGrants: (await list('/client-grants')).map((grant) => ({ ...grant, client: clientName(grant.client_id), audience: grant.audience === server.audience ? '<management api>' : grant.audience })).sort((a, b) => a.client.localeCompare(b.client)),
    connections: await Promise.all(
      connections.sort(byName).map(async (connection) => {
        const enabled = ((await get(`/connections/${String(connection.id)}/clients`)) as { clients: Json[] }).clients;
        return { ...connection, enabled_clients: enabled.map((client) => clientName(client.client_id)).sort() };
      }),
    ),
    roles: await Promise.all(roles.sort(byName).map(async (role) => ({ ...role, permissions: await list(`/roles/${String(role.id)}/permissions`) }))),
    organizations: await Promise.all(
      organizations.sort(byName).map(async (organization) => ({
        ...organization,
        connections: (await list(`/organizations/${String(organization.id)}/enabled_connections`)).map((link) => ({ ...link, connection: connectionName(link.connection_id) })),
      })),
    ),
    actions: actions.sort(byName).map((action) => ({ ...action, deployed: (action.deployed_version as Json | undefined)?.deployed === true })),
    triggers: Object.fromEntries(
      await Promise.all(
        ((await get('/actions/triggers')) as { triggers: Json[] }).triggers.map(async (trigger) => {
          const { bindings } = (await get(`/actions/triggers/${String(trigger.id)}/bindings`)) as { bindings: Json[] };
          return [String(trigger.id), bindings.map((binding) => ({ display_name: binding.display_name, action_name: (binding.action as Json | undefined)?.name }))];
        }),
      ),
    ),
    prompts: await get('/prompts'),
    customText: Object.fromEntries(await Promise.all(locales.map(async (language) => [language, await get(`/prompts/login-id/custom-text/${language}`)]))),
    rendering: await get('/prompts/login-id/screen/login-id/rendering'),
    branding: await get('/branding'),
    guardianFactors: await get('/guardian/factors'),
    guardianPolicies: await get('/guardian/policies'),
    attackProtection: {
      bruteForce: await get('/attack-protection/brute-force-protection'),
      suspiciousIp: await get('/attack-protection/suspicious-ip-throttling'),
      breachedPassword: await get('/attack-protection/breached-password-detection'),
    },
    logStreams: (await list('/log-streams')).sort(byName),
  };
  return strip(snapshot, server) as Record<string, unknown>;
}
