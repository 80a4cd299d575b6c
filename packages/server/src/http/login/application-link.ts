import type { CachedClient } from '../../services/config-cache.js';

/**
 * Where a link back to the application leads from a screen outside any login (reset-password-success,
 * email-verification-result): the ticket's `result_url` when it has one, else the site of the application's first
 * web callback (a callback itself would need a fresh authorization request).
 */
export function applicationLink(resultUrl: string | null, client: CachedClient | undefined): string | undefined {
  if (resultUrl) return resultUrl;
  const callback = client?.data.callbacks.find((url) => /^https?:\/\/[^*]+$/.test(url) && URL.canParse(url));
  return callback ? `${new URL(callback).origin}/` : undefined;
}
