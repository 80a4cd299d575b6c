import type { ConnectionData } from './connections.js';
import type { Storage } from '../storage/storage.js';
import { loginAccount, profileDefaults, withLogin, type UserData } from './users.js';
import { OIDC_MAPPING, type ClaimMapping } from './connection-options/upstream.js';

export interface FederatedUsersDeps {
  storage: Storage;
  tenantId: string;
  now: () => Date;
}

export type FederatedOutcome = { ok: true; userId: string } | { ok: false; reason: 'blocked' | 'no_subject' | 'email_taken' };

const claimText = (claims: Record<string, unknown>, name: string | undefined) => {
  const value = name === undefined ? undefined : claims[name];
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
};

/**
 * The users of upstream connections. The provider's subject names the user: `<strategy>|<connection>|<sub>`,
 * created at the first login and refreshed from the provider's claims at each one. A user of another connection
 * with the same e-mail stays a separate user: accounts are merged only by an explicit link.
 */
export function federatedUsers(deps: FederatedUsersDeps) {
  const { storage, tenantId } = deps;

  return {
    async signIn(connection: ConnectionData, claims: Record<string, unknown>, mapping: ClaimMapping, ip?: string): Promise<FederatedOutcome> {
      const field = (name: keyof ClaimMapping) => claimText(claims, mapping[name] ?? OIDC_MAPPING[name]);
      const subject = field('user_id');
      if (!subject) return { ok: false, reason: 'no_subject' };
      const userId = `${connection.strategy}|${connection.name}|${subject}`;
      const email = field('email')?.toLowerCase();
      const verifiedClaim = claims[mapping.email_verified ?? OIDC_MAPPING.email_verified];
      const profile: Partial<Pick<UserData, 'email' | 'email_verified' | 'name' | 'nickname' | 'picture' | 'given_name' | 'family_name'>> = {
        ...(email !== undefined ? { email, email_verified: verifiedClaim === true || verifiedClaim === 'true' } : {}),
      };
      for (const name of ['name', 'nickname', 'picture', 'given_name', 'family_name'] as const) {
        const value = field(name);
        if (value !== undefined) profile[name] = value;
      }
      const at = deps.now().toISOString();
      const existing = await storage.users.get(tenantId, userId);
      try {
        if (existing) {
          // Linked into another user: the profile stays this identity's, the login is the primary's.
          const account = await loginAccount(storage, tenantId, existing);
          if (existing.data.blocked || account.data.blocked) return { ok: false, reason: 'blocked' };
          // Written on the document as stored now: a concurrent change to it (metadata, a block) is not undone.
          await storage.users.modify(tenantId, userId, (current) => {
            const refreshed = { ...current.data, ...profile };
            return { data: account.id === userId ? withLogin(refreshed, at, ip) : refreshed, columns: { updated_at: at, ...(email !== undefined ? { email } : {}) } };
          });
          if (account.id !== userId) await storage.users.modify(tenantId, account.id, (current) => ({ data: withLogin(current.data, at, ip) }));
          return { ok: true, userId: account.id };
        }
        const data = withLogin(
          {
            email_verified: false,
            ...profile,
            ...profileDefaults(profile, email, { name: subject, nickname: subject }),
            blocked: false,
            user_metadata: {},
            app_metadata: {},
            logins_count: 0,
          },
          at,
          ip,
        );
        const columns = { connection: connection.name, email: email ?? null, username: null, password_hash: null, updated_at: at, linked_to: null };
        await storage.users.insert(tenantId, { id: userId, columns, data, createdAt: at });
        return { ok: true, userId };
      } catch (error) {
        // Another subject of this connection already has the e-mail (e-mails are unique per connection).
        if (storage.isUniqueViolation(error)) return { ok: false, reason: 'email_taken' };
        throw error;
      }
    },
  };
}

export type FederatedUsers = ReturnType<typeof federatedUsers>;
