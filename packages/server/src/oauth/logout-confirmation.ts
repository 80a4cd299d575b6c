import { hmacSha256 } from '../crypto/deployment-secret.js';
import { safeEqual } from '../crypto/handles.js';

/**
 * The token of a page that asks "log out?" before a logout that anyone could have linked to (SAML single logout
 * without a signed request, `/oidc/logout` without `id_token_hint`). It is an HMAC of the session cookie's value,
 * so only the browser holding that cookie can know it: another site can send the user to the question, never
 * answer it. Nothing is stored; the token dies with the session cookie.
 */
export function logoutConfirmation(handleKey: Buffer) {
  const key = hmacSha256(handleKey, 'logout-confirmation');
  const token = (sessionHandle: string) => hmacSha256(key, sessionHandle).toString('base64url');
  return {
    token,
    /** Whether `candidate` is the token of this session cookie (compared in constant time). */
    valid: (sessionHandle: string, candidate: string | undefined): boolean => candidate !== undefined && safeEqual(token(sessionHandle), candidate),
  };
}

export type LogoutConfirmation = ReturnType<typeof logoutConfirmation>;
