import { certificatePem } from '../crypto/certificate-pem.js';
import { generateClientSecret, hashClientSecret } from '../crypto/client-secret.js';
import { randomId } from '../crypto/random.js';
import { checkAuthenticationMethods } from './client-credentials.js';
import type { Repositories } from '../storage/repositories/index.js';
import type { PageWindow } from '../storage/repositories/page.js';
import type { AppType, ClientData, SamlAddon } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import { ServiceError } from './errors.js';
import { CLIENT_METADATA_MAX_KEYS, mergeMetadata } from './metadata.js';
import { changedRefreshTokenSettings, refreshTokenSettingsOf, type RefreshTokenInput, type RefreshTokenSettings } from './refresh-token-settings.js';
import { found } from './unique.js';

export type { AppType, ClientData, SamlAddon, TokenEndpointAuthMethod } from '../storage/records.js';

/** What a create request may carry: every field optional, nested ones partial. */
export type ClientInput = Omit<Partial<ClientData>, 'jwt_configuration' | 'credentials' | 'refresh_token'> & {
  jwt_configuration?: Partial<ClientData['jwt_configuration']>;
  /** Laid over the current settings; null returns to the default (services/refresh-token-settings.ts). */
  refresh_token?: RefreshTokenInput | null;
};

/** A PATCH: like a create, but client_metadata merges and a `null` value removes its key. */
export type ClientPatch = Omit<ClientInput, 'client_metadata'> & { client_metadata?: Record<string, string | null> };

/** A SAML add-on whose certificate could never verify a signature is refused when it is saved. */
function checkSamlAddon(addon: SamlAddon | undefined): void {
  if (addon?.signingCert !== undefined && certificatePem(addon.signingCert) === undefined) {
    throw new ServiceError('invalid', 'addons.samlp.signingCert must be a PEM or base64 X.509 certificate.', 'invalid_body');
  }
}

export const PUBLIC_APP_TYPES: ReadonlySet<AppType> = new Set(['spa', 'native']);

export function defaultGrantTypes(appType: AppType): string[] {
  switch (appType) {
    case 'non_interactive':
      return ['client_credentials'];
    case 'spa':
    case 'native':
      return ['implicit', 'authorization_code', 'refresh_token'];
    case 'regular_web':
      return ['authorization_code', 'implicit', 'refresh_token', 'client_credentials'];
  }
}

/** Fills the platform's defaults for fields a create request left out. */
export function newClientData(input: ClientInput & { name: string }): ClientData {
  const appType = input.app_type ?? 'regular_web';
  const { refresh_token: refreshTokenInput, ...fields } = input;
  const refreshToken = changedRefreshTokenSettings(undefined, refreshTokenInput);
  return {
    ...fields,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    name: input.name,
    app_type: appType,
    callbacks: input.callbacks ?? [],
    allowed_logout_urls: input.allowed_logout_urls ?? [],
    web_origins: input.web_origins ?? [],
    allowed_origins: input.allowed_origins ?? [],
    grant_types: input.grant_types ?? defaultGrantTypes(appType),
    token_endpoint_auth_method: input.token_endpoint_auth_method ?? (PUBLIC_APP_TYPES.has(appType) ? 'none' : 'client_secret_post'),
    jwt_configuration: { alg: 'RS256', lifetime_in_seconds: 36000, ...(input.jwt_configuration ?? {}) },
    cross_origin_authentication: input.cross_origin_authentication ?? false,
    is_first_party: input.is_first_party ?? true,
    oidc_conformant: input.oidc_conformant ?? true,
    sso_disabled: input.sso_disabled ?? false,
    client_metadata: input.client_metadata ?? {},
  };
}

export function newClientId(): string {
  return randomId(32);
}

export function isConfidential(data: Pick<ClientData, 'token_endpoint_auth_method'>): boolean {
  return data.token_endpoint_auth_method !== 'none';
}

export interface ClientView extends Omit<ClientData, 'credentials' | 'refresh_token'> {
  client_id: string;
  /** Always shown: a client that never set it shows the default it has. */
  refresh_token: RefreshTokenSettings;
  tenant: string;
  global: false;
  /** Present only in the answer that created or rotated it. */
  client_secret?: string;
}

/** The list filters of `GET /clients`, with the platform's meanings; each given one must match. */
export interface ClientFilter {
  global?: boolean;
  is_first_party?: boolean;
  app_type?: readonly string[];
  client_ids?: readonly string[];
  none?: true;
}

function matches(client: ClientView, filter: ClientFilter): boolean {
  if (filter.none) return false;
  if (filter.global !== undefined && client.global !== filter.global) return false;
  if (filter.is_first_party !== undefined && client.is_first_party !== filter.is_first_party) return false;
  if (filter.app_type && !filter.app_type.includes(client.app_type)) return false;
  return !filter.client_ids || filter.client_ids.includes(client.client_id);
}

export interface ClientsDeps {
  storage: Storage;
  tenantId: string;
  clientSecretKey: Buffer;
  now: () => Date;
}

const noClient = () => new ServiceError('not_found', 'The client does not exist', 'inexistent_client');

/** A deleted client is no longer enabled on any connection (the platform cleans these references up too). */
async function disableOnConnections(repos: Repositories, tenantId: string, clientId: string) {
  const { items } = await repos.connections.list(tenantId, { offset: 0, limit: Number.MAX_SAFE_INTEGER });
  for (const connection of items) {
    if (!connection.data.enabled_clients.includes(clientId)) continue;
    const enabled = connection.data.enabled_clients.filter((id) => id !== clientId);
    await repos.connections.update(tenantId, connection.id, { data: { ...connection.data, enabled_clients: enabled } });
  }
}

/**
 * Management of applications. Only a keyed hash of the secret is stored, so the secret can be shown only in the
 * answer that generated it: the creation of a confidential client, and rotate-secret.
 */
export function clientsService(deps: ClientsDeps) {
  const { storage, tenantId, clientSecretKey } = deps;
  const view = (clientId: string, { credentials: _credentials, ...data }: ClientData, secret?: string): ClientView => ({
    ...data,
    refresh_token: refreshTokenSettingsOf(data),
    client_id: clientId,
    tenant: tenantId,
    global: false,
    ...(secret !== undefined ? { client_secret: secret } : {}),
  });
  const load = async (clientId: string) => found(await storage.clients.get(tenantId, clientId), noClient);

  return {
    /**
     * The filters are on the clients' documents, so they are applied here rather than in SQL: a tenant has tens of
     * applications, not millions. `none` (a query about organizations, which do not exist here) matches nothing.
     */
    async list(window: PageWindow, filter: ClientFilter = {}) {
      if (Object.keys(filter).length === 0) {
        const page = await storage.clients.list(tenantId, window);
        return { items: page.items.map((record) => view(record.id, record.data)), total: page.total };
      }
      const all = await storage.clients.list(tenantId, { offset: 0, limit: Number.MAX_SAFE_INTEGER });
      const matching = all.items.map((record) => view(record.id, record.data)).filter((client) => matches(client, filter));
      return { items: matching.slice(window.offset, window.offset + window.limit), total: matching.length };
    },

    async get(clientId: string): Promise<ClientView> {
      const record = await load(clientId);
      return view(record.id, record.data);
    },

    async create(input: ClientInput & { name: string }): Promise<ClientView> {
      // A new client has no credentials yet, so it cannot name any.
      checkAuthenticationMethods(input.client_authentication_methods, []);
      checkSamlAddon(input.addons?.samlp);
      const data = newClientData(input);
      const clientId = newClientId();
      const secret = isConfidential(data) ? generateClientSecret() : undefined;
      await storage.clients.insert(tenantId, {
        id: clientId,
        columns: { secret_hash: secret ? hashClientSecret(clientSecretKey, secret) : null },
        data,
        createdAt: deps.now().toISOString(),
      });
      return view(clientId, data, secret);
    },

    /**
     * Partial update: jwt_configuration and refresh_token merge, client_metadata merges (null removes a key). A client turned
     * public loses its secret; one turned confidential gets none here (a PATCH never shows a secret): it needs
     * rotate-secret before it can authenticate.
     */
    async update(clientId: string, patch: ClientPatch): Promise<ClientView> {
      const record = await load(clientId);
      const current = record.data;
      const { client_metadata: metadata, jwt_configuration: jwt, refresh_token: refreshTokenInput, ...fields } = patch;
      const clientMetadata = mergeMetadata(current.client_metadata, metadata);
      // The platform's limit holds for the merged object: PATCHes of new keys must not grow it without end.
      if (Object.keys(clientMetadata).length > CLIENT_METADATA_MAX_KEYS) {
        throw new ServiceError('invalid', `client_metadata may hold at most ${CLIENT_METADATA_MAX_KEYS} properties.`, 'invalid_body');
      }
      const { refresh_token: currentRefreshToken, ...unchanged } = current;
      const refreshToken = changedRefreshTokenSettings(currentRefreshToken, refreshTokenInput);
      const data: ClientData = {
        ...unchanged,
        ...fields,
        jwt_configuration: { ...current.jwt_configuration, ...(jwt ?? {}) },
        client_metadata: clientMetadata,
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
      };
      checkAuthenticationMethods(data.client_authentication_methods, data.credentials ?? []);
      checkSamlAddon(data.addons?.samlp);
      const columns = isConfidential(data) ? {} : { secret_hash: null };
      if (!(await storage.clients.update(tenantId, clientId, { data, columns }))) throw noClient();
      return view(clientId, data);
    },

    /** Removes the client with its grants, its users' consent and its place on connections; removing a missing client is a no-op. */
    async remove(clientId: string): Promise<void> {
      await storage.transaction(async (repos) => {
        await repos.clientGrants.removeWhere(tenantId, { client_id: clientId });
        await repos.consents.removeWhere(tenantId, { clientId });
        await disableOnConnections(repos, tenantId, clientId);
        await repos.clients.remove(tenantId, clientId);
      });
    },

    async rotateSecret(clientId: string): Promise<ClientView> {
      const record = await load(clientId);
      const data = record.data;
      if (!isConfidential(data)) {
        throw new ServiceError('invalid', 'A public client (token_endpoint_auth_method none) has no secret to rotate.', 'invalid_body');
      }
      const secret = generateClientSecret();
      if (!(await storage.clients.update(tenantId, clientId, { columns: { secret_hash: hashClientSecret(clientSecretKey, secret) } }))) throw noClient();
      return view(clientId, data, secret);
    },
  };
}
