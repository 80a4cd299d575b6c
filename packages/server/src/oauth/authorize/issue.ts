import { handleId, newHandle } from '../../crypto/handles.js';
import { randomId } from '../../crypto/random.js';
import type { SessionData } from '../../services/sessions.js';
import type { CachedClient } from '../../services/config-cache.js';
import type { UserGrantServices } from '../grants/grant.js';
import type { AuthorizationCodeData } from '../grants/authorization-code.js';
import type { Repositories } from '../../storage/repositories/index.js';
import type { Storage } from '../../storage/storage.js';
import type { AuthorizeRequest } from './request.js';
import type { TokenChanges } from '../action-claims.js';

/** Codes are exchanged at once by a working client; a short life limits what a leaked one is worth. */
const CODE_SECONDS = 300;

export interface IssueDeps {
  storage: Storage;
  tenantId: string;
  users: UserGrantServices;
}

/** The grant id an authorization's code and tokens share, and its code when the response type asks for one. */
export interface IssuedGrant {
  grantId: string;
  code?: string;
}

/**
 * Stores the authorization code when the response type asks for one. `repos` lets a caller store it in the same
 * commit as the session it belongs to.
 */
export async function issueCode(
  request: AuthorizeRequest,
  client: CachedClient,
  session: SessionData,
  deps: IssueDeps,
  repos: Pick<Repositories, 'artifacts'> = deps.storage,
  actions?: TokenChanges,
): Promise<IssuedGrant> {
  const grantId = randomId(32);
  if (!request.responseTypes.includes('code')) return { grantId };
  const now = deps.users.now();
  const code = newHandle();
  const data: AuthorizationCodeData = {
    client_id: client.clientId,
    redirect_uri: request.redirectUri,
    user_id: session.user_id,
    scopes: request.scopes,
    audience: request.audience ?? null,
    nonce: request.nonce ?? null,
    code_challenge: request.codeChallenge ?? null,
    auth_time: session.auth_time,
    sid: session.sid,
    ...(request.organization !== undefined ? { organization: { id: request.organization, name: request.organizationName ?? '' } } : {}),
    ...(actions ? { actions } : {}),
    ...(session.amr?.includes('mfa') ? { amr: [...session.amr] } : {}),
  };
  await repos.artifacts.insert(deps.tenantId, 'authorization_code', {
    id: handleId(deps.users.handleKey, code),
    family: grantId,
    subject: session.user_id,
    data,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + CODE_SECONDS * 1000).toISOString(),
  });
  return { grantId, code };
}

/**
 * The response parameters of a successful authorization: a code and/or tokens as the response type asks,
 * always with `state`. Codes and tokens of one authorization share a grant id, so replaying the code revokes
 * the refresh tokens it led to. `issued` is the code (and grant id) already stored by `issueCode`, if it was.
 */
export async function authorizationResult(
  request: AuthorizeRequest,
  client: CachedClient,
  session: SessionData,
  deps: IssueDeps,
  issued?: IssuedGrant,
  actions?: TokenChanges,
): Promise<Record<string, string | number | undefined>> {
  const { grantId, code } = issued ?? (await issueCode(request, client, session, deps, deps.storage, actions));
  const wantsToken = request.responseTypes.includes('token');
  const wantsIdToken = request.responseTypes.includes('id_token');
  const tokens =
    wantsToken || wantsIdToken
      ? await deps.users.userTokens.issue(
          {
            clientId: client.clientId,
            client: client.data,
            userId: session.user_id,
            scopes: request.scopes,
            audience: request.audience,
            nonce: request.nonce,
            authTime: session.auth_time,
            sid: session.sid,
            organization: request.organization !== undefined ? { id: request.organization, name: request.organizationName ?? '' } : undefined,
            grantId,
            actionChanges: actions,
            amr: session.amr,
          },
          { accessToken: wantsToken, idToken: wantsIdToken, refreshToken: false, ...(code ? { code } : {}) },
        )
      : undefined;
  return {
    code,
    access_token: tokens?.access_token,
    token_type: wantsToken ? 'Bearer' : undefined,
    expires_in: wantsToken ? tokens?.expires_in : undefined,
    scope: wantsToken ? tokens?.scope : undefined,
    id_token: tokens?.id_token,
    state: request.state,
  };
}
