import { verifyClientSecret } from '../crypto/client-secret.js';
import type { ClientData } from '../services/clients.js';
import type { OAuthConfig } from './config-cache.js';
import { InvalidClient, InvalidRequest } from './errors.js';

export interface ClientCredentialsInput {
  authorization: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
}

export interface AuthenticatedClient {
  clientId: string;
  data: ClientData;
  method: 'client_secret_basic' | 'client_secret_post' | 'none';
}

/** Decodes `Authorization: Basic` per RFC 6749 2.3.1 (form-urlencoded id and secret). */
function parseBasic(header: string): { id: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/**
 * Authenticates the client of a token request by `client_secret_basic`, `client_secret_post` or, for public
 * clients, by id alone. Unknown clients and wrong secrets get the same answer.
 */
export async function authenticateClient(
  input: ClientCredentialsInput,
  deps: { config: OAuthConfig; secretKey: Buffer },
): Promise<AuthenticatedClient> {
  let clientId = input.clientId;
  let secret = input.clientSecret;
  let method: AuthenticatedClient['method'] = secret !== undefined ? 'client_secret_post' : 'none';
  const basic = input.authorization?.toLowerCase().startsWith('basic ') ? input.authorization : undefined;
  if (basic !== undefined) {
    const credentials = parseBasic(basic);
    if (!credentials) throw new InvalidClient('Malformed Basic authorization header.', true);
    if (secret !== undefined) throw new InvalidRequest('Use only one client authentication method.');
    if (clientId !== undefined && clientId !== credentials.id) throw new InvalidRequest('client_id does not match the Basic credentials.');
    clientId = credentials.id;
    secret = credentials.secret;
    method = 'client_secret_basic';
  }
  if (!clientId) throw new InvalidRequest('Missing required parameter: client_id');
  const record = await deps.config.client(clientId);
  // Built only on failure: an Error captures a stack trace, which costs more than the secret check itself.
  const failed = () => new InvalidClient('Client authentication failed.', method === 'client_secret_basic');
  if (!record) throw failed();
  const data = record.data;
  if (method === 'none') {
    if (data.token_endpoint_auth_method !== 'none') throw failed();
  } else if (!record.secretHash || !verifyClientSecret(deps.secretKey, secret ?? '', record.secretHash)) {
    throw failed();
  }
  return { clientId, data, method };
}
