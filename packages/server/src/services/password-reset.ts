import { hmacSha256 } from '../crypto/deployment-secret.js';
import { handleId, newHandle, safeEqual } from '../crypto/handles.js';
import type { Storage } from '../storage/storage.js';
import { ServiceError } from './errors.js';
import { originFields, type RequestOrigin } from './events/event.js';
import type { EventRecorder } from './events/recorder.js';
import type { Notifier } from './notifier.js';
import { hashPassword } from './passwords.js';

export interface PasswordResetTicket {
  user_id: string;
  client_id: string | null;
  result_url: string | null;
  mark_email_as_verified: boolean;
}

export interface PasswordResetDeps {
  storage: Storage;
  tenantId: string;
  issuer: string;
  handleKey: Buffer;
  now: () => Date;
}

/** The platform's default life of a password-change ticket: five days. */
export const DEFAULT_TICKET_SECONDS = 5 * 86_400;

/**
 * Password-change tickets: a link with a secret (stored as a hash) that lets its holder set a new password once.
 * Created by the Management API (`POST /api/v2/tickets/password-change`) or the hosted reset-request page.
 */
export function passwordResets(deps: PasswordResetDeps) {
  const { storage, tenantId } = deps;
  const csrfKey = hmacSha256(deps.handleKey, 'reset-csrf');
  const live = async (ticket: string) => {
    const artifact = await storage.artifacts.get<PasswordResetTicket>(tenantId, 'password_reset', handleId(deps.handleKey, ticket));
    return artifact && artifact.consumedAt === null && artifact.expiresAt > deps.now().toISOString() ? artifact.data : undefined;
  };

  return {
    /** Returns the URL of the reset page for this ticket. */
    async create(input: { userId: string; clientId?: string | undefined; resultUrl?: string | undefined; ttlSeconds?: number | undefined; markEmailAsVerified?: boolean | undefined }): Promise<string> {
      const ticket = newHandle();
      const now = deps.now();
      const data: PasswordResetTicket = {
        user_id: input.userId,
        client_id: input.clientId ?? null,
        result_url: input.resultUrl ?? null,
        mark_email_as_verified: input.markEmailAsVerified ?? false,
      };
      await storage.artifacts.insert(tenantId, 'password_reset', {
        id: handleId(deps.handleKey, ticket),
        subject: input.userId,
        data,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + (input.ttlSeconds || DEFAULT_TICKET_SECONDS) * 1000).toISOString(),
      });
      return `${deps.issuer}/u/reset-password?ticket=${ticket}#`;
    },

    find: live,

    csrfToken: (ticket: string) => hmacSha256(csrfKey, ticket).toString('base64url'),
    csrfValid(ticket: string, token: string | undefined) {
      return token !== undefined && safeEqual(this.csrfToken(ticket), token);
    },

    /** Sets the new password and spends the ticket; only one of two concurrent submissions succeeds. */
    async redeem(ticket: string, password: string): Promise<PasswordResetTicket | undefined> {
      const passwordHash = await hashPassword(password);
      const now = deps.now().toISOString();
      return storage.transaction(async (repos) => {
        const artifact = await repos.artifacts.consume<PasswordResetTicket>(tenantId, 'password_reset', handleId(deps.handleKey, ticket), now);
        if (!artifact) return undefined;
        const user = await repos.users.get(tenantId, artifact.data.user_id);
        if (!user) throw new ServiceError('not_found', 'The user does not exist.', 'inexistent_user');
        const data = artifact.data.mark_email_as_verified ? { ...user.data, email_verified: true } : user.data;
        await repos.users.update(tenantId, user.id, { data, columns: { password_hash: passwordHash, updated_at: now } });
        // Whoever knew the old password may hold a session or a refresh token: both end with it.
        await repos.artifacts.revokeSubject(tenantId, user.id, ['session', 'refresh_token'], now);
        return artifact.data;
      });
    },
  };
}

export type PasswordResets = ReturnType<typeof passwordResets>;

export interface ResetLinkDeps {
  storage: Storage;
  tenantId: string;
  resets: PasswordResets;
  notifier: Notifier;
  /** The tenant log: a link sent is `scpr`. */
  events: Pick<EventRecorder, 'record'>;
}

/**
 * "Forgot password" for an address on a database connection: when a user has it, a single-use, expiring link to
 * the hosted reset page is e-mailed. Nothing tells the caller whether anyone did, so nobody learns who is
 * registered (the hosted request page and `POST /dbconnections/change_password` answer the same either way).
 */
export async function sendPasswordResetLink(
  deps: ResetLinkDeps,
  input: { connection: string; email: string; clientId: string; clientName: string; origin: RequestOrigin },
): Promise<void> {
  const email = input.email.trim().toLowerCase();
  const user = await deps.storage.users.findOne(deps.tenantId, { connection: input.connection, email });
  if (!user) return;
  const url = await deps.resets.create({ userId: user.id, clientId: input.clientId });
  await deps.notifier.passwordReset({ email, url, clientName: input.clientName });
  deps.events.record({ type: 'scpr', user_id: user.id, user_name: email, client_id: input.clientId, connection: input.connection, ...originFields(input.origin) });
}
