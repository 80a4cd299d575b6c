import { handleId, newHandle } from '../../crypto/handles.js';
import type { Storage } from '../../storage/storage.js';
import type { SignInPath } from '../sign-in-pipeline.js';
import { ExpiredMfaToken, MalformedMfaToken } from '../errors.js';

/** The platform's lifetime of an mfa_token: ten minutes, not configurable. */
export const MFA_TOKEN_SECONDS = 600;

/** What a sign-in that stopped for a second factor was: the MFA grants finish it without the password again. */
export interface PendingSignIn {
  clientId: string;
  userId: string;
  path: SignInPath;
  connection: string | null;
  /** How the user proved who they are so far (e.g. `pwd`). */
  amr: string[];
  scope: string | null;
  audience: string | null;
  /** The login name the user gave (brute-force protection counts wrong codes under it, with the address). */
  identifier: string;
  /** Wrong codes given with this token so far. */
  failures: number;
}

export interface ReadMfaToken {
  /** The stored (hashed) id, to update or spend the token. */
  id: string;
  data: PendingSignIn;
}

/**
 * mfa_tokens: random handles given to the application once, stored only as their keyed hash (artifacts), live
 * ten minutes, bound to the application and the user (another application presenting one is refused), and spent
 * by the grant that finishes the sign-in.
 */
export function mfaTokens(deps: { storage: Storage; tenantId: string; handleKey: Buffer; now: () => Date }) {
  const { storage, tenantId } = deps;
  return {
    async issue(pending: Omit<PendingSignIn, 'failures'>): Promise<string> {
      const token = newHandle();
      const now = deps.now();
      await storage.artifacts.insert(tenantId, 'mfa_token', {
        id: handleId(deps.handleKey, token),
        subject: pending.userId,
        data: { ...pending, failures: 0 } satisfies PendingSignIn,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + MFA_TOKEN_SECONDS * 1000).toISOString(),
      });
      return token;
    },

    /**
     * A pending sign-in for the hosted MFA screens: the same record (wrong codes counted, expiry, spent once), but
     * no token is given out; the login transaction keeps the stored id.
     */
    async start(pending: Omit<PendingSignIn, 'failures'>): Promise<string> {
      return handleId(deps.handleKey, await this.issue(pending));
    },

    /** The live token for this application; refuses an unknown, spent, expired or other application's token. */
    async read(token: string | undefined, clientId: string | undefined): Promise<ReadMfaToken> {
      if (!token) throw new MalformedMfaToken();
      return this.readStored(handleId(deps.handleKey, token), clientId);
    },

    /** `read` by the stored id (the hosted MFA screens keep it in their transaction). */
    async readStored(id: string, clientId: string | undefined): Promise<ReadMfaToken> {
      const found = await storage.artifacts.get<PendingSignIn>(tenantId, 'mfa_token', id);
      if (!found || found.consumedAt !== null) throw new MalformedMfaToken();
      if (found.expiresAt <= deps.now().toISOString()) throw new ExpiredMfaToken();
      if (clientId !== undefined && found.data.clientId !== clientId) throw new MalformedMfaToken();
      return { id, data: found.data };
    },

    /** One more wrong code: answers the count (the caller gives up on the token at its limit). */
    async failed(read: ReadMfaToken): Promise<number> {
      const next = { ...read.data, failures: read.data.failures + 1 };
      // Compare-and-swap: of two wrong codes at once both count (the loser reads again and counts once more).
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const current = await storage.artifacts.get<PendingSignIn>(tenantId, 'mfa_token', read.id);
        if (!current) return next.failures;
        const counted = { ...current.data, failures: current.data.failures + 1 };
        if (await storage.artifacts.swap(tenantId, 'mfa_token', read.id, current.data, counted, deps.now().toISOString())) return counted.failures;
      }
      return next.failures;
    },

    /** Spends the token: true for exactly one caller. */
    async spend(read: ReadMfaToken): Promise<boolean> {
      return (await storage.artifacts.consume(tenantId, 'mfa_token', read.id, deps.now().toISOString())) !== undefined;
    },
  };
}

export type MfaTokens = ReturnType<typeof mfaTokens>;
