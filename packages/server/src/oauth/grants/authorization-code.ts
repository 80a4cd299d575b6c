import { handleId } from '../../crypto/handles.js';
import { revokeGrant } from '../grant-revocations.js';
import { InvalidGrant, InvalidRequest, UnauthorizedClient } from '../errors.js';
import { verifierMatches } from '../pkce.js';
import type { Grant } from './grant.js';
import type { TokenOrganization } from '../refresh-tokens.js';
import type { TokenChanges } from '../action-claims.js';

/** What `/authorize` stores behind a code (see authorize/issue.ts). */
export interface AuthorizationCodeData {
  client_id: string;
  redirect_uri: string;
  user_id: string;
  scopes: string[];
  audience: string | null;
  nonce: string | null;
  code_challenge: string | null;
  auth_time: number;
  sid: string | null;
  /** The organization the user logged in to (`/authorize?organization=`). */
  organization?: TokenOrganization;
  /** Custom claims and scopes from the post-login Actions that ran before the code was issued. */
  actions?: TokenChanges;
  /** How the session's user authenticated, when it took a second factor. */
  amr?: string[];
}

/**
 * RFC 6749 4.1.3 with PKCE (RFC 7636). A code is consumed by one conditional update; presenting it again finds
 * it consumed, and then everything issued from it (its refresh tokens share its family) is revoked (4.1.2).
 */
export const authorizationCodeGrant: Grant = {
  grantType: 'authorization_code',
  parameters: ['code', 'redirect_uri', 'code_verifier'],
  events: { failed: 'feacft', succeeded: 'seacft' },
  async handle({ params, client, tenantId, storage, users, exchanged }) {
    if (!client.data.grant_types.includes('authorization_code')) {
      throw new UnauthorizedClient(`Grant type 'authorization_code' not allowed for the client.`);
    }
    if (!params.code) throw new InvalidRequest('Missing required parameter: code');
    const id = handleId(users.handleKey, params.code);
    const at = users.now();
    const artifact = await storage.artifacts.consume<AuthorizationCodeData>(tenantId, 'authorization_code', id, at.toISOString());
    if (!artifact) {
      const seen = await storage.artifacts.get(tenantId, 'authorization_code', id);
      if (seen?.consumedAt && seen.family) await revokeGrant(storage, tenantId, seen.family, at);
      throw new InvalidGrant('Invalid authorization code');
    }
    const code = artifact.data;
    if (code.client_id !== client.clientId) throw new InvalidGrant('Invalid authorization code');
    if (params.redirect_uri !== code.redirect_uri) throw new InvalidGrant('Invalid redirect_uri: it must match the one of the authorization request.');
    if (code.code_challenge) {
      if (!params.code_verifier || !verifierMatches(params.code_verifier, code.code_challenge)) {
        throw new InvalidGrant('Failed to verify code verifier');
      }
    } else if (params.code_verifier) {
      throw new InvalidGrant('Failed to verify code verifier');
    } else if (client.method === 'none') {
      // A public client cannot prove it is the one that asked: only PKCE binds the code to it.
      throw new InvalidGrant('A public client must use PKCE (code_challenge) with the authorization code grant.');
    }
    const response = await users.userTokens.tokenResponse(
      {
        clientId: client.clientId,
        client: client.data,
        userId: code.user_id,
        scopes: code.scopes,
        audience: code.audience ?? undefined,
        nonce: code.nonce ?? undefined,
        authTime: code.auth_time,
        sid: code.sid ?? undefined,
        organization: code.organization,
        actionChanges: code.actions,
        amr: code.amr,
        grantId: artifact.family ?? '',
        certificateThumbprint: client.certificateThumbprint,
        idTokenSecret: client.secret,
      },
    );
    exchanged({ user_id: code.user_id, scope: code.scopes.join(' '), ...(code.audience ? { audience: code.audience } : {}) });
    return response;
  },
};
