import type { BrowserMfa, BrowserSignInPath } from '../mfa/browser-mfa.js';
import type { UserGrantServices } from '../grants/grant.js';
import type { AuthorizeRequest } from './request.js';
import type { SignedInUser } from './sign-in.js';

/**
 * The second factor a browser sign-in waits for on the hosted MFA screens: a pending sign-in of the MFA API's kind
 * (wrong codes are counted on it and it expires like an mfa_token) for this application and user, and what the
 * sign-in resumes with once the factor is proved.
 */
export async function pendingSecondFactor(
  users: Pick<UserGrantServices, 'mfa'>,
  request: AuthorizeRequest,
  user: SignedInUser,
  path: BrowserSignInPath,
  extra: Pick<BrowserMfa, 'sid' | 'actions'> = {},
): Promise<BrowserMfa> {
  const tokenId = await users.mfa.tokens.start({
    clientId: request.clientId,
    userId: user.userId,
    path,
    connection: user.connection,
    amr: user.amr,
    scope: request.scopes.join(' '),
    audience: request.audience ?? null,
    identifier: user.userId,
  });
  return { userId: user.userId, connection: user.connection, amr: [...user.amr], path, tokenId, ...extra };
}
