import { handleId, newHandle, safeEqual } from '../crypto/handles.js';
import { hmacSha256 } from '../crypto/deployment-secret.js';
import { randomId } from '../crypto/random.js';
import type { Repositories } from '../storage/repositories/index.js';
import type { Storage } from '../storage/storage.js';

/**
 * Login tickets of cross-origin login (`/co/authenticate`). Credentials checked from an application's page
 * become a ticket the browser then takes to `/authorize` (`login_ticket`), which signs the user in without a
 * page. The ticket alone is not enough: it is bound to a verifier that only the browser that logged in holds,
 * in a cookie of ours or, when third-party cookies are blocked, in the application's own storage (read back
 * through its cross-origin verification page). Single-use, short-lived, stored only as hashes.
 */
export interface LoginTicketData {
  client_id: string;
  user_id: string;
  connection: string;
  amr: string[];
  /** Public: names the verifier in the verification page's messages. */
  co_id: string;
  verifier_hash: string;
}

/** Long enough for the redirect that follows at once; the library keeps its verifier 15 minutes. */
export const LOGIN_TICKET_SECONDS = 300;

export interface LoginTicketsDeps {
  storage: Storage;
  tenantId: string;
  handleKey: Buffer;
  now: () => Date;
}

export function loginTickets(deps: LoginTicketsDeps) {
  const { storage, tenantId } = deps;
  const verifierKey = hmacSha256(deps.handleKey, 'co-verifier');
  const verifierHash = (verifier: string) => hmacSha256(verifierKey, verifier).toString('base64url');
  const idOf = (ticket: string) => handleId(deps.handleKey, ticket);

  async function live(ticket: string) {
    const artifact = await storage.artifacts.get<LoginTicketData>(tenantId, 'login_ticket', idOf(ticket));
    return artifact && artifact.consumedAt === null && artifact.expiresAt > deps.now().toISOString() ? artifact.data : undefined;
  }

  return {
    async issue(input: { clientId: string; userId: string; connection: string; amr: string[] }): Promise<{ loginTicket: string; coVerifier: string; coId: string }> {
      const loginTicket = newHandle();
      const coVerifier = newHandle();
      const coId = randomId(24);
      const now = deps.now();
      const data: LoginTicketData = {
        client_id: input.clientId,
        user_id: input.userId,
        connection: input.connection,
        amr: input.amr,
        co_id: coId,
        verifier_hash: verifierHash(coVerifier),
      };
      await storage.artifacts.insert(tenantId, 'login_ticket', {
        id: idOf(loginTicket),
        subject: input.userId,
        data,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + LOGIN_TICKET_SECONDS * 1000).toISOString(),
      });
      return { loginTicket, coVerifier, coId };
    },

    /** The live ticket of this application, unspent; undefined for anything else. */
    async find(ticket: string, clientId: string): Promise<LoginTicketData | undefined> {
      const data = await live(ticket);
      return data && data.client_id === clientId ? data : undefined;
    },

    /** The live ticket, whichever application it is for (the verification page does not name one). */
    findAny: live,

    verifierMatches: (data: LoginTicketData, verifier: string | undefined) => verifier !== undefined && safeEqual(verifierHash(verifier), data.verifier_hash),

    /** Spends the ticket; of two concurrent redemptions exactly one succeeds. */
    async redeem(ticket: string, repos: Pick<Repositories, 'artifacts'> = storage): Promise<LoginTicketData | undefined> {
      return (await repos.artifacts.consume<LoginTicketData>(tenantId, 'login_ticket', idOf(ticket), deps.now().toISOString()))?.data;
    },
  };
}

export type LoginTickets = ReturnType<typeof loginTickets>;
