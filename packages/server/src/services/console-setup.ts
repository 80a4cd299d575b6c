import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomId } from '../crypto/random.js';
import type { Storage } from '../storage/storage.js';
import { newClientData } from './clients.js';
import { ServiceError } from './errors.js';
import type { ConnectionData } from './connections.js';
import { MANAGEMENT_SCOPES } from './management-scopes.js';
import { managementApiIdentifier } from './resource-servers.js';
import { usersService, type UserView } from './users.js';

/** The console's first-party single-page application: a fixed id, so that the console knows it without asking. */
export const CONSOLE_CLIENT_ID = 'latchkey-console';
/** The role whose Management API permissions a console sign-in carries (and no other client's sign-in). */
export const ADMINISTRATOR_ROLE = 'Latchkey Administrator';
/** Where administrators sign in: the platform's default database connection. */
export const ADMINISTRATOR_CONNECTION = 'Username-Password-Authentication';
const CREDENTIALS_FILE = 'console-credentials.json';
const BOOTSTRAP_EMAIL = 'admin@latchkey.local';

export interface ConsoleSetupDeps {
  storage: Storage;
  tenantId: string;
  issuer: string;
  now: () => Date;
}

/**
 * Makes sure the console's client, the administrators' database connection (the console enabled on it) and the
 * administrator role (every Management API permission) exist. Existing objects are kept as an operator may have
 * changed them; the role gets back any permission it lacks, so a new Management API scope reaches administrators.
 */
export async function ensureConsole(deps: ConsoleSetupDeps): Promise<{ roleId: string }> {
  const { storage, tenantId, issuer } = deps;
  return storage.exclusive(`latchkey:console:${tenantId}`, async (repos) => {
    const at = deps.now().toISOString();
    const origin = new URL(issuer).origin;
    const client = newClientData({
      name: 'Latchkey Console',
      app_type: 'spa',
      callbacks: [`${issuer}/admin/`],
      allowed_logout_urls: [`${issuer}/admin/`],
      web_origins: [origin],
      grant_types: ['authorization_code', 'refresh_token'],
    });
    await repos.clients.insert(tenantId, { id: CONSOLE_CLIENT_ID, columns: { secret_hash: null }, data: client, createdAt: at }, { ifMissing: true });

    const connection = await repos.connections.findOne(tenantId, { name: ADMINISTRATOR_CONNECTION });
    if (!connection) {
      const name = ADMINISTRATOR_CONNECTION;
      const data: ConnectionData = { name, strategy: 'auth0', enabled_clients: [CONSOLE_CLIENT_ID], options: {}, is_domain_connection: false, show_as_button: false, realms: [name], metadata: {} };
      await repos.connections.insert(tenantId, { id: `con_${randomId(16)}`, columns: { name, strategy: 'auth0' }, data, createdAt: at });
    } else if (!connection.data.enabled_clients.includes(CONSOLE_CLIENT_ID)) {
      await repos.connections.update(tenantId, connection.id, { data: { ...connection.data, enabled_clients: [...connection.data.enabled_clients, CONSOLE_CLIENT_ID] } });
    }

    const found = (await repos.roles.list(tenantId, { offset: 0, limit: 50 }, ADMINISTRATOR_ROLE)).items.find((role) => role.name === ADMINISTRATOR_ROLE);
    const roleId = found?.id ?? `rol_${randomId(16)}`;
    if (!found) {
      await repos.roles.insert(tenantId, { id: roleId, name: ADMINISTRATOR_ROLE, description: 'Signs in to the admin console with every Management API permission.', createdAt: at });
    }
    const audience = managementApiIdentifier(issuer);
    const permissions = MANAGEMENT_SCOPES.map((permission_name) => ({ resource_server_identifier: audience, permission_name }));
    await repos.roles.addPermissions(tenantId, roleId, permissions, at);
    return { roleId };
  });
}

/** A new administrator: a user of the administrators' connection holding the administrator role. */
export async function createAdministrator(
  deps: Omit<ConsoleSetupDeps, 'issuer'>,
  roleId: string,
  input: { email: string; password: string },
): Promise<UserView> {
  const user = await usersService(deps).create({ connection: ADMINISTRATOR_CONNECTION, email: input.email, password: input.password, email_verified: true });
  await deps.storage.roles.assign(deps.tenantId, [{ userId: user.user_id, roleId }], deps.now().toISOString());
  return user;
}

/** A generated password long and varied enough for any password policy the connection may have. */
export function generatedPassword(): string {
  return `${randomId(24)}-Aa1!`;
}

/**
 * At first start, when no one holds the administrator role: creates the bootstrap administrator and writes their
 * credentials to the data folder (mode 0600), as the admin application's are. Returns the file when it wrote it.
 */
export async function bootstrapAdministrator(deps: ConsoleSetupDeps & { dataDir: string }, roleId: string): Promise<string | undefined> {
  const file = join(deps.dataDir, CREDENTIALS_FILE);
  if (existsSync(file)) return undefined;
  const holders = await deps.storage.roles.usersOfRole(deps.tenantId, roleId, { offset: 0, limit: 1 });
  if (holders.total > 0) return undefined;
  const password = generatedPassword();
  let user: UserView;
  try {
    user = await createAdministrator(deps, roleId, { email: BOOTSTRAP_EMAIL, password });
  } catch (error) {
    // Another node created them first (the e-mail is unique in the connection); it wrote the file.
    if (error instanceof ServiceError && error.kind === 'conflict') return undefined;
    throw error;
  }
  mkdirSync(deps.dataDir, { recursive: true });
  const console = `${deps.issuer}/admin/`;
  writeFileSync(file, `${JSON.stringify({ console, user_id: user.user_id, email: BOOTSTRAP_EMAIL, password }, null, 2)}\n`, { mode: 0o600 });
  return file;
}
