import { handleId, newHandle } from '../crypto/handles.js';
import type { Storage } from '../storage/storage.js';
import { ServiceError } from './errors.js';
import type { NewLogEvent } from './events/event.js';
import type { EventRecorder } from './events/recorder.js';
import type { Notifier } from './notifier.js';

export interface EmailVerificationTicket {
  user_id: string;
  /** The address the link was sent for: a link for an address the user no longer has verifies nothing. */
  email: string;
  client_id: string | null;
  result_url: string | null;
  include_email_in_redirect: boolean;
}

export interface EmailVerificationDeps {
  storage: Storage;
  tenantId: string;
  issuer: string;
  handleKey: Buffer;
  now: () => Date;
}

/** The platform's default life of an e-mail verification ticket: five days. */
export const DEFAULT_VERIFICATION_SECONDS = 5 * 86_400;

/** What opening a link did: the values of the platform's `screen.data.status` on `email-verification-result`. */
export type VerificationOutcome =
  | { status: 'success' | 'already_verified'; ticket: EmailVerificationTicket }
  | { status: 'invalid_account_or_code'; ticket?: EmailVerificationTicket | undefined };

/**
 * E-mail verification tickets: a link with a secret (stored only as a keyed hash, like password-change tickets)
 * that marks the user's address verified once, before it expires.
 */
export function emailVerifications(deps: EmailVerificationDeps) {
  const { storage, tenantId } = deps;
  return {
    /** Returns the URL of the verification page for this ticket. */
    async create(input: { userId: string; clientId?: string | undefined; resultUrl?: string | undefined; ttlSeconds?: number | undefined; includeEmailInRedirect?: boolean | undefined }): Promise<string> {
      const user = await storage.users.get(tenantId, input.userId);
      if (!user) throw new ServiceError('not_found', 'The user does not exist.', 'inexistent_user');
      if (!user.data.email) throw new ServiceError('invalid', 'The user has no e-mail address.', 'invalid_body');
      const ticket = newHandle();
      const now = deps.now();
      const data: EmailVerificationTicket = {
        user_id: user.id,
        email: user.data.email,
        client_id: input.clientId ?? null,
        result_url: input.resultUrl ?? null,
        include_email_in_redirect: input.includeEmailInRedirect ?? false,
      };
      await storage.artifacts.insert(tenantId, 'email_verification', {
        id: handleId(deps.handleKey, ticket),
        subject: user.id,
        data,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + (input.ttlSeconds || DEFAULT_VERIFICATION_SECONDS) * 1000).toISOString(),
      });
      return `${deps.issuer}/u/email-verification?ticket=${ticket}#`;
    },

    /** Spends the ticket and marks the address verified; a spent, expired or unknown ticket verifies nothing. */
    async redeem(ticket: string): Promise<VerificationOutcome> {
      const now = deps.now().toISOString();
      return storage.transaction(async (repos): Promise<VerificationOutcome> => {
        const artifact = await repos.artifacts.consume<EmailVerificationTicket>(tenantId, 'email_verification', handleId(deps.handleKey, ticket), now);
        if (!artifact) return { status: 'invalid_account_or_code' };
        const user = await repos.users.get(tenantId, artifact.data.user_id);
        if (!user || user.data.email !== artifact.data.email) return { status: 'invalid_account_or_code', ticket: artifact.data };
        if (user.data.email_verified === true) return { status: 'already_verified', ticket: artifact.data };
        await repos.users.update(tenantId, user.id, { data: { ...user.data, email_verified: true }, columns: { updated_at: now } });
        return { status: 'success', ticket: artifact.data };
      });
    },
  };
}

export type EmailVerifications = ReturnType<typeof emailVerifications>;

export interface VerificationEmailDeps {
  verifications: EmailVerifications;
  notifier: Notifier;
  /** The tenant log: a link sent is `svr`, one that could not be sent `fvr`. */
  events: Pick<EventRecorder, 'record'>;
}

/**
 * Sends a user the link that verifies their address (sign-up, `verify_email`, the verification-email job). A link
 * sent on request is logged `svr`; the one a sign-up sends by itself is not (the sign-up's `ss` stands for it).
 */
export async function sendVerificationEmail(
  deps: VerificationEmailDeps,
  input: { userId: string; email: string; connection?: string | undefined; clientId?: string | undefined; clientName?: string | undefined; extra?: Pick<NewLogEvent, 'ip' | 'user_agent'>; logSent?: boolean },
): Promise<void> {
  const logged = { user_id: input.userId, user_name: input.email, ...(input.clientId ? { client_id: input.clientId } : {}), ...(input.connection ? { connection: input.connection } : {}), ...input.extra };
  try {
    const url = await deps.verifications.create({ userId: input.userId, clientId: input.clientId });
    await deps.notifier.verifyEmail({ email: input.email, url, clientName: input.clientName ?? '' });
    if (input.logSent !== false) deps.events.record({ type: 'svr', ...logged });
  } catch (error) {
    deps.events.record({ type: 'fvr', description: error instanceof Error ? error.message : 'could not send', ...logged });
    throw error;
  }
}
