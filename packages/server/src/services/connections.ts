import { randomId } from '../crypto/random.js';
import type { PageWindow } from '../storage/repositories/page.js';
import type { ConnectionData } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import type { ConnectionSecrets } from './connection-secrets.js';
import { ServiceError } from './errors.js';
import { found, uniquely } from './unique.js';
import { samlSettings } from './connection-options/saml.js';
import { isUpstream, upstreamSettings } from './connection-options/upstream.js';
import { passkeyOptionProblems } from './connection-options/passkeys.js';
import { passwordOptionProblems } from './connection-options/password.js';
import { passwordlessOptionProblems } from './connection-options/passwordless.js';

export { STRATEGIES, type ConnectionData, type Strategy } from '../storage/records.js';

export interface ConnectionView extends ConnectionData {
  id: string;
}

type Changeable = Omit<ConnectionData, 'name' | 'strategy'>;
export type ConnectionInput = Pick<ConnectionData, 'name' | 'strategy'> & Partial<Changeable>;
/** Name and strategy are fixed at creation; `null` resets options and enabled_clients to empty. */
export type ConnectionPatch = Partial<Omit<Changeable, 'options' | 'enabled_clients'>> & {
  options?: Record<string, unknown> | null;
  enabled_clients?: string[] | null;
};

export interface ConnectionsDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
  /** Seals upstream credentials (`options.client_secret`) at rest. */
  connectionSecrets: ConnectionSecrets;
  /** Whether upstream providers may be at http: URLs (outside production). */
  config?: { production: boolean };
}

const noConnection = () => new ServiceError('not_found', 'The connection does not exist', 'inexistent_connection');

/** Where users come from: a database (`auth0`), passwordless (`email`, `sms`) or a federation (`samlp`, `oidc`). */
export function connectionsService(deps: ConnectionsDeps) {
  const { storage, tenantId } = deps;
  const load = async (id: string) => found(await storage.connections.get(tenantId, id), noConnection);
  const { connectionSecrets: secrets } = deps;
  const view = (id: string, data: ConnectionData): ConnectionView => ({ ...secrets.open(data), id });
  /**
   * An upstream provider's options (and a database's password and passkey options, a passwordless connection's
   * codes) are checked when saved, not discovered broken (or silently ignored) at the first login.
   */
  const checkOptions = (data: ConnectionData) => {
    if (data.strategy === 'auth0') {
      const problems = [...passwordOptionProblems(data.options), ...passkeyOptionProblems(data.options)];
      if (problems.length > 0) throw new ServiceError('invalid', `Invalid options of a database connection: ${problems.join('; ')}.`, 'invalid_body');
      return;
    }
    if (data.strategy === 'email' || data.strategy === 'sms') {
      const problems = passwordlessOptionProblems(data.options);
      if (problems.length > 0) throw new ServiceError('invalid', `Invalid options of a passwordless connection: ${problems.join('; ')}.`, 'invalid_body');
      return;
    }
    if (!isUpstream(data) && data.strategy !== 'samlp') return;
    const allowHttp = deps.config?.production !== true;
    const { problems } = data.strategy === 'samlp' ? samlSettings(data, allowHttp) : upstreamSettings(data, allowHttp);
    if (problems.length > 0) throw new ServiceError('invalid', `Invalid options of a ${data.strategy} connection: ${problems.join('; ')}.`, 'invalid_body');
  };

  return {
    async list(window: PageWindow, where: { strategy?: readonly string[]; name?: string }) {
      const page = await storage.connections.list(tenantId, window, where);
      return { items: page.items.map((record) => view(record.id, record.data)), total: page.total };
    },
    async get(id: string): Promise<ConnectionView> {
      const record = await load(id);
      return view(record.id, record.data);
    },
    async create(input: ConnectionInput): Promise<ConnectionView> {
      const data: ConnectionData = {
        enabled_clients: [],
        options: {},
        is_domain_connection: false,
        show_as_button: false,
        metadata: {},
        ...input,
        // The platform names the connection as its realm when none (or an empty list) is given.
        realms: input.realms?.length ? input.realms : [input.name],
      };
      data.enabled_clients = [...new Set(data.enabled_clients)];
      checkOptions(data);
      const id = `con_${randomId(16)}`;
      await uniquely(
        storage,
        () => new ServiceError('conflict', 'A connection with the same name already exists', 'conflict'),
        () => storage.connections.insert(tenantId, { id, columns: { name: data.name, strategy: data.strategy }, data: secrets.seal(data), createdAt: deps.now().toISOString() }),
      );
      return view(id, data);
    },
    /** `options` is replaced as a whole, as the platform does; so are enabled_clients, realms and metadata. */
    async update(id: string, patch: ConnectionPatch): Promise<ConnectionView> {
      const record = await load(id);
      const { options, enabled_clients: enabled, realms, ...fields } = patch;
      const data: ConnectionData = {
        ...secrets.open(record.data),
        ...fields,
        ...(options !== undefined ? { options: options ?? {} } : {}),
        ...(enabled !== undefined ? { enabled_clients: [...new Set(enabled ?? [])] } : {}),
        ...(realms !== undefined ? { realms: realms.length ? realms : [record.data.name] } : {}),
      };
      checkOptions(data);
      if (!(await storage.connections.update(tenantId, id, { data: secrets.seal(data) }))) throw noConnection();
      return view(id, data);
    },
    /** The applications the connection is enabled for, in the order they were enabled. */
    async enabledClients(id: string, window: PageWindow) {
      const enabled = (await load(id)).data.enabled_clients;
      return { items: enabled.slice(window.offset, window.offset + window.limit).map((clientId) => ({ client_id: clientId })), total: enabled.length };
    },
    /**
     * Enables (`status: true`) or disables applications, leaving the others as they are; the last change of a
     * client in the list wins. Only existing clients can be enabled. Written on the document as stored, so a
     * concurrent change to the connection is not undone.
     */
    async changeEnabledClients(id: string, changes: readonly { client_id: string; status: boolean }[]) {
      await load(id);
      const statusOf = new Map(changes.map((change) => [change.client_id, change.status]));
      for (const [clientId, status] of statusOf) {
        if (status && !(await storage.clients.get(tenantId, clientId))) throw new ServiceError('not_found', `The client does not exist: ${clientId}`, 'inexistent_client');
      }
      const written = await storage.connections.modify(tenantId, id, (current) => {
        const kept = current.data.enabled_clients.filter((clientId) => statusOf.get(clientId) !== false);
        const added = [...statusOf].filter(([clientId, status]) => status && !kept.includes(clientId)).map(([clientId]) => clientId);
        return { data: { ...current.data, enabled_clients: [...kept, ...added] } };
      });
      if (!written) throw noConnection();
    },
    /** Removes the connection and its users together; removing a missing connection is a no-op. */
    async remove(id: string) {
      const record = await storage.connections.get(tenantId, id);
      if (!record) return;
      await storage.transaction(async (repos) => {
        await repos.users.removeWhere(tenantId, { connection: record.data.name });
        await repos.organizations.removeConnectionEverywhere(tenantId, id);
        await repos.connections.remove(tenantId, id);
      });
    },
  };
}
