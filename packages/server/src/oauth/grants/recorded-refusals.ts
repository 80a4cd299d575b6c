/**
 * Refusals whose log event was recorded where they were decided: the credential check of the password grants
 * records `fp`, `fu`, `f`, `limit_wc`, `limit_mu` or `pwd_leak` itself (services/database-login.ts), so the token
 * endpoint, which records a failed exchange for every other refusal, records none for these. Cross-origin login
 * (oauth/cross-origin-login.ts) marks the same refusals, so that it records no `fcoa` beside them.
 */
const recorded = new WeakSet<object>();

export function recordedAlready<E extends Error>(error: E): E {
  recorded.add(error);
  return error;
}

export const wasRecorded = (error: unknown): boolean => typeof error === 'object' && error !== null && recorded.has(error);
