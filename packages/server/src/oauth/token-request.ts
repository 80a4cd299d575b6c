import type { Storage } from '../storage/storage.js';
import type { OAuthConfig } from '../services/config-cache.js';
import { authenticateClient, type ClientAuthDeps, type ClientCredentialsInput } from './client-auth.js';
import { originFields, type NewLogEvent, type RequestOrigin } from '../services/events/event.js';
import { InvalidRequest, OAuthError, UnsupportedGrantType } from './errors.js';
import type { Grant, TokenResponse, UserGrantServices } from './grants/grant.js';
import { wasRecorded } from './grants/recorded-refusals.js';
import { GRANTS } from './grants/registry.js';
import { RefreshTokenReused } from './refresh-tokens.js';
import type { TokenIssuer } from './tokens.js';
import type { CredentialsExchangeActions } from './credentials-exchange-actions.js';

export interface TokenRequestDeps {
  storage: Storage;
  config: OAuthConfig;
  tenantId: string;
  tokens: TokenIssuer;
  clientAuth: ClientAuthDeps;
  users: UserGrantServices;
  credentialsExchange: CredentialsExchangeActions;
}

function stringParam(body: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new InvalidRequest(`Parameter '${name}' must be a string.`);
  return value;
}

/**
 * The token endpoint, free of HTTP: find the grant, authenticate the client, hand the grant only the
 * parameters it declares.
 */
/** The client-authentication parameters of a token or revocation request body. */
export function clientCredentialsOf(body: Readonly<Record<string, unknown>>, transport: Pick<ClientCredentialsInput, 'authorization' | 'edge'>): ClientCredentialsInput {
  return {
    authorization: transport.authorization,
    edge: transport.edge,
    clientId: stringParam(body, 'client_id'),
    clientSecret: stringParam(body, 'client_secret'),
    clientAssertion: stringParam(body, 'client_assertion'),
    clientAssertionType: stringParam(body, 'client_assertion_type'),
  };
}

export async function handleTokenRequest(
  body: Readonly<Record<string, unknown>>,
  transport: Pick<ClientCredentialsInput, 'authorization' | 'edge'> & RequestOrigin,
  deps: TokenRequestDeps,
): Promise<TokenResponse> {
  const grantType = stringParam(body, 'grant_type');
  if (!grantType) throw new InvalidRequest('Missing required parameter: grant_type');
  const grant = GRANTS.get(grantType);
  if (!grant) throw new UnsupportedGrantType(`Unsupported grant type: ${grantType}`);
  const exchange = { clientId: typeof body.client_id === 'string' ? body.client_id : undefined };
  try {
    const client = await authenticateClient(clientCredentialsOf(body, transport), deps.clientAuth);
    exchange.clientId = client.clientId;
    const params: Record<string, string | undefined> = {};
    for (const name of grant.parameters) params[name] = stringParam(body, name);
    // The tenant's default_audience stands in for an audience the request does not name, as on the platform.
    if (grant.parameters.includes('audience') && !params.audience) params.audience = (await deps.config.tenantDocument())?.settings.default_audience || undefined;
    const succeeded = grant.events.succeeded;
    const exchanged = (fields: Pick<NewLogEvent, 'user_id' | 'connection' | 'audience' | 'scope'> = {}) => {
      if (succeeded) deps.users.events.record({ type: succeeded, client_id: client.clientId, ...originFields(transport), ...fields });
    };
    return await grant.handle({
      params,
      client,
      ip: transport.ip,
      userAgent: transport.userAgent,
      origin: { ip: transport.ip, userAgent: transport.userAgent, details: transport.details },
      exchanged,
      tenantId: deps.tenantId,
      storage: deps.storage,
      config: deps.config,
      tokens: deps.tokens,
      users: deps.users,
      credentialsExchange: deps.credentialsExchange,
    });
  } catch (error) {
    recordFailedExchange(deps.users.events, grant, error, exchange.clientId, transport);
    throw error;
  }
}

/**
 * The grant's failed-exchange event for a refusal (an OAuthError; an outage is no verdict on the request), unless
 * the refusal was logged where it was decided. A reused refresh token is `ferrt`, naming the user whose grant it
 * revoked.
 */
function recordFailedExchange(
  events: UserGrantServices['events'],
  grant: Grant,
  error: unknown,
  clientId: string | undefined,
  origin: { ip: string; userAgent?: string | undefined },
) {
  if (!(error instanceof OAuthError) || wasRecorded(error)) return;
  const reused = error instanceof RefreshTokenReused;
  events.record({
    type: reused ? 'ferrt' : grant.events.failed,
    description: error.description,
    ...(clientId !== undefined ? { client_id: clientId } : {}),
    ...(reused ? { user_id: error.userId } : {}),
    ...originFields(origin),
    details: { error: error.error, grant_type: grant.grantType },
  });
}
