import { InvalidGrant, InvalidRequest, InvalidScope, UnauthorizedClient } from '../errors.js';
import { splitScope } from '../scopes.js';
import type { Grant } from './grant.js';
import { revokeGrant } from '../grant-revocations.js';
import { oauthRefusal, type SignInAttempt, type SignInRefusal } from '../sign-in-pipeline.js';

/**
 * RFC 6749 6 with rotation: each use spends the presented token and answers its successor (oauth/refresh-tokens.ts
 * keeps the chain; a client whose settings say non-rotating keeps its one token, and the answer carries none). Reuse detection happens in `redeem`: a token presented again after it was rotated means it
 * leaked (or the client is confused), and handleRefreshTokenReuse revokes the whole grant, so neither the thief nor
 * the client can go on (OAuth 2.0 Security BCP 4.14.2).
 */
export const refreshTokenGrant: Grant = {
  grantType: 'refresh_token',
  parameters: ['refresh_token', 'scope'],
  events: { failed: 'fertft' },
  async handle({ params, client, tenantId, storage, users, origin }) {
    if (!client.data.grant_types.includes('refresh_token')) {
      throw new UnauthorizedClient(`Grant type 'refresh_token' not allowed for the client.`);
    }
    if (!params.refresh_token) throw new InvalidRequest('Missing required parameter: refresh_token');
    // Refuses (and on reuse revokes the grant of) a token that is not the one in force.
    const presented = await users.userTokens.refreshTokens.redeem(client.clientId, params.refresh_token);
    const token = presented.data;
    // Checked before the token is spent: a refused request leaves the client its refresh token.
    const requested = splitScope(params.scope);
    const outside = requested.filter((scope) => !token.scopes.includes(scope));
    if (outside.length > 0) throw new InvalidScope(`The requested scope exceeds the original grant: ${outside.join(' ')}`);
    const user = await users.userTokens.loadUser(token.user_id);
    // A refused account (deleted or blocked since) ends the grant: its refresh tokens would be refused forever.
    const refuse = async (refusal: SignInRefusal) => {
      if (refusal.reason === 'blocked') {
        await revokeGrant(storage, tenantId, presented.family, users.now());
        return new InvalidGrant('Unknown or invalid refresh token.');
      }
      return oauthRefusal()(refusal);
    };
    const scopes = requested.length > 0 ? requested : token.scopes;
    const attempt: SignInAttempt = {
      path: 'refresh-token-grant',
      clientId: client.clientId,
      userId: token.user_id,
      connection: undefined,
      amr: token.amr ?? [],
      account: user,
      refuse,
      origin,
      audience: token.audience ?? undefined,
      scope: scopes.join(' '),
    };
    // A narrower scope applies to this answer only; the next refresh token keeps the original grant.
    return users.signIn.run(attempt, () => users.userTokens.tokenResponse({
      clientId: client.clientId,
      client: client.data,
      userId: token.user_id,
      scopes,
      refreshScopes: token.scopes,
      audience: token.audience ?? undefined,
      authTime: token.auth_time,
      sid: token.sid ?? undefined,
      amr: token.amr,
      organization: token.organization,
      grantId: presented.family,
      refreshChain: presented,
      certificateThumbprint: client.certificateThumbprint,
      idTokenSecret: client.secret,
      user,
      actionChanges: attempt.decisions?.tokenChanges,
    }));
  },
};
