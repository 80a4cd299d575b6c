import { MAX_TOKEN_LIFETIME } from '../services/resource-servers.js';
import type { Repositories } from '../storage/repositories/index.js';
import type { Storage } from '../storage/storage.js';

/**
 * The claim that names the grant an access token came from (the family its code and refresh tokens share). Our own
 * endpoints refuse a token whose grant was revoked; an API that verifies our JWTs by itself cannot know, so a JWT
 * already handed to one stays valid there until it expires.
 */
export const GRANT_ID_CLAIM = 'grant_id';

/**
 * Ends a grant: its code and refresh tokens die, and from now on our endpoints refuse the access tokens it issued
 * (a replayed code or refresh token, an explicit revocation, a blocked user). All of it commits, or none of it.
 * The revocation is kept as long as the longest-lived access token the grant can have issued.
 */
export async function revokeGrant(storage: Storage, tenantId: string, grantId: string, now: Date): Promise<void> {
  await storage.transaction((repos) => revokeGrantsIn(repos, tenantId, [grantId], now));
}

/** Ends several grants as `revokeGrant` ends one, inside the caller's transaction (with what else it ends). */
export async function revokeGrantsIn(repos: Pick<Repositories, 'artifacts' | 'grantRevocations'>, tenantId: string, grantIds: readonly string[], now: Date): Promise<void> {
  const at = now.toISOString();
  const until = new Date(now.getTime() + MAX_TOKEN_LIFETIME * 1000).toISOString();
  for (const grantId of grantIds) {
    await repos.artifacts.revokeFamily(tenantId, grantId, at);
    await repos.grantRevocations.add(tenantId, grantId, at, until);
  }
}

export interface GrantRevocationsDeps {
  storage: Storage;
  tenantId: string;
  /** How long "not revoked" may be believed without asking the database again; 0 asks every time. */
  ttlMs: number;
  now: () => Date;
  /** Most grants remembered at once; the oldest go first. */
  limit?: number;
}

/**
 * Answers "was this grant revoked?" for every request that presents an access token. An application polling
 * `/userinfo` with one token asks about one grant again and again, so answers are kept: a revocation forever (it
 * is final), "not revoked" for `ttlMs`. Any revocation, by this process or (change bus) by another node, drops
 * every kept answer; without a bus, another node's revocation is seen within `ttlMs`.
 */
export function grantRevocations(deps: GrantRevocationsDeps) {
  const { storage, tenantId, ttlMs } = deps;
  const limit = deps.limit ?? 10_000;
  const answers = new Map<string, { revoked: boolean; until: number }>();
  // Bumped by every revocation: a read that began before one must not keep what it read.
  let generation = 0;
  storage.onChange((table) => {
    if (table !== 'grant_revocations') return;
    generation += 1;
    answers.clear();
  });

  return {
    async isRevoked(grantId: string): Promise<boolean> {
      const nowMs = deps.now().getTime();
      const known = answers.get(grantId);
      if (known && known.until > nowMs) return known.revoked;
      if (known) answers.delete(grantId);
      const startedAt = generation;
      const revoked = await storage.grantRevocations.isRevoked(tenantId, grantId, new Date(nowMs).toISOString());
      if (startedAt === generation && (revoked || ttlMs > 0)) {
        if (answers.size >= limit) answers.delete(answers.keys().next().value as string);
        answers.set(grantId, { revoked, until: revoked ? Infinity : nowMs + ttlMs });
      }
      return revoked;
    },
  };
}

export type GrantRevocations = ReturnType<typeof grantRevocations>;
