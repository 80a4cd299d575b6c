import { newResourceServerData, type ResourceServerData } from '../../services/resource-servers.js';

/**
 * The MFA API as an audience (`https://<domain>/mfa/`), as the platform has it: an application asks for an access token
 * for it (`audience=…/mfa/`, scopes `read:authenticators`, `remove:authenticators`, `enroll`) to let a signed-in user
 * manage their authenticators from its own pages. A built-in API: not stored, not listed, not deletable.
 */
export const mfaApiIdentifier = (issuer: string) => `${issuer}/mfa/`;

export const MFA_API_SCOPES = ['enroll', 'read:authenticators', 'remove:authenticators'] as const;

export function mfaApiResourceServer(issuer: string): ResourceServerData {
  return newResourceServerData({
    identifier: mfaApiIdentifier(issuer),
    name: 'MFA API',
    scopes: MFA_API_SCOPES.map((value) => ({ value, description: value === 'enroll' ? 'Enroll authenticators' : value === 'read:authenticators' ? 'List authenticators' : 'Remove authenticators' })),
    // Short-lived, as the platform issues them: they manage factors, the most sensitive part of an account.
    token_lifetime: 600,
  });
}
