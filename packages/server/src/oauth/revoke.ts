import type { Storage } from '../storage/storage.js';
import type { AuthenticatedClient } from './client-auth.js';
import { InvalidRequest, UnsupportedTokenType } from './errors.js';
import { revokeGrant } from './grant-revocations.js';
import { refreshTokenStore } from './refresh-tokens.js';

export interface RevokeDeps {
  storage: Storage;
  tenantId: string;
  handleKey: Buffer;
  now: () => Date;
}

/**
 * RFC 7009 for refresh tokens: revoking one ends its whole grant (every rotation of it, and as 2.1 advises the access
 * tokens issued from it, at our own endpoints: oauth/grant-revocations.ts). Unknown tokens and
 * tokens of other clients are answered like success, so the endpoint tells nobody which tokens exist.
 */
export async function revokeRefreshToken(client: AuthenticatedClient, token: string | undefined, hint: string | undefined, deps: RevokeDeps): Promise<void> {
  if (!token) throw new InvalidRequest('Missing required parameter: token');
  if (hint !== undefined && hint !== 'refresh_token') throw new UnsupportedTokenType('Only refresh tokens can be revoked.');
  const found = await refreshTokenStore(deps).find(token);
  if (!found || found.data.client_id !== client.clientId) return;
  await revokeGrant(deps.storage, deps.tenantId, found.family, deps.now());
}
