import { AccessDenied, InvalidScope, UnauthorizedClient } from '../errors.js';
import type { Grant } from './grant.js';
import { addCustomClaims } from '../action-claims.js';
import type { AccessTokenClaims } from '../tokens.js';

function splitScope(scope: string | undefined): string[] {
  return scope ? scope.split(' ').filter(Boolean) : [];
}

/** RFC 6749 4.4: a confidential client obtains a token for an API it holds a client grant for. */
export const clientCredentialsGrant: Grant = {
  grantType: 'client_credentials',
  parameters: ['audience', 'scope'],
  events: { failed: 'feccft', succeeded: 'seccft' },
  async handle({ params, client, config, tokens, exchanged, origin, credentialsExchange }) {
    if (client.method === 'none') throw new UnauthorizedClient('The client_credentials grant needs an authenticated confidential client.');
    if (!client.data.grant_types.includes('client_credentials')) {
      throw new UnauthorizedClient(`Grant type 'client_credentials' not allowed for the client.`);
    }
    const audience = params.audience;
    if (!audience) throw new AccessDenied('No audience parameter was provided, and no default audience has been configured');
    const api = await config.resourceServer(audience);
    if (!api) throw new AccessDenied(`Service not found: ${audience}`);
    const grant = await config.clientGrant(client.clientId, audience);
    if (!grant) throw new AccessDenied(`Client is not authorized to access "${audience}". You need to create a "client-grant" associated to this API.`);
    const granted = grant.scope;
    const requested = splitScope(params.scope);
    const scopes = requested.length === 0 ? granted : requested.filter((scope) => granted.includes(scope));
    if (requested.length > 0 && scopes.length === 0) {
      throw new InvalidScope(`Client has not been granted scopes: ${requested.join(', ')}`);
    }
    const lifetime = api.token_lifetime;
    const scope = scopes.join(' ');
    const claims: AccessTokenClaims & Record<string, unknown> = {
      sub: `${client.clientId}@clients`,
      aud: audience,
      azp: client.clientId,
      scope,
      gty: 'client-credentials',
      ...(client.certificateThumbprint ? { cnf: { 'x5t#S256': client.certificateThumbprint } } : {}),
    };
    // The tenant's credentials-exchange Actions: a denial throws the grant's error; claims join the token.
    addCustomClaims(claims, await credentialsExchange.run({ clientId: client.clientId, audience, scopes, requestedScopes: requested, origin }));
    const accessToken = await tokens.accessToken(claims, lifetime);
    exchanged({ audience, scope });
    return { access_token: accessToken, token_type: 'Bearer', expires_in: lifetime, scope };
  },
};
