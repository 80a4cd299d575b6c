import { hmacSha256 } from '../../crypto/deployment-secret.js';
import { safeEqual } from '../../crypto/handles.js';
import type { Storage } from '../../storage/storage.js';

/** How long a browser the user asked to remember skips the second factor (the platform's 30 days). */
export const REMEMBER_BROWSER_SECONDS = 30 * 86_400;

/** A mark to set in the browser: the cookie's name and value, and how long it lives. */
export interface BrowserMark {
  name: string;
  value: string;
  maxAgeSeconds: number;
}

/**
 * "Remember this browser": after a second factor, a browser may skip it for 30 days. The mark is a cookie per user
 * (its name a keyed hash of the user id, so several accounts in one browser each have theirs and the name says
 * nothing), holding when it was set and a keyed MAC binding that time to the user. Nothing is stored per browser:
 * `/users/{id}/multifactor/actions/invalidate-remember-browser` records a time, and marks set before it count no more.
 */
export function rememberedBrowsers(deps: { storage: Storage; tenantId: string; key: Buffer; now: () => Date }) {
  const nameOf = (userId: string) => `lk_mfa_${hmacSha256(deps.key, `name\n${userId}`).subarray(0, 12).toString('base64url')}`;
  const macOf = (userId: string, setAt: number) => hmacSha256(deps.key, `mark\n${userId}\n${setAt}`).toString('base64url');

  return {
    mark(userId: string): BrowserMark {
      const setAt = Math.floor(deps.now().getTime() / 1000);
      return { name: nameOf(userId), value: `${setAt}.${macOf(userId, setAt)}`, maxAgeSeconds: REMEMBER_BROWSER_SECONDS };
    },

    /** Whether the browser's cookies hold a live mark for the user (set in the last 30 days, not invalidated since). */
    async remembers(userId: string, cookies: Readonly<Record<string, string | undefined>>): Promise<boolean> {
      const value = cookies[nameOf(userId)];
      const [setAtText = '', mac = ''] = (value ?? '').split('.');
      const setAt = Number(setAtText);
      if (!/^\d{1,12}$/.test(setAtText) || !safeEqual(mac, macOf(userId, setAt))) return false;
      const now = deps.now().getTime() / 1000;
      if (setAt > now + 60 || now - setAt > REMEMBER_BROWSER_SECONDS) return false;
      const revokedAt = await deps.storage.authenticators.rememberedBrowsersRevokedAt(deps.tenantId, userId);
      return revokedAt === undefined || Date.parse(revokedAt) / 1000 < setAt;
    },
  };
}

export type RememberedBrowsers = ReturnType<typeof rememberedBrowsers>;
