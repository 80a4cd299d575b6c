import type { Session, Sessions } from '../../services/sessions.js';
import type { Repositories } from '../../storage/repositories/index.js';
import type { CachedClient } from '../../services/config-cache.js';
import { issueCode, type IssueDeps, type IssuedGrant } from './issue.js';
import type { AuthorizeRequest } from './request.js';

/** Who signs in: the user, the connection that authenticated them, and how. */
export interface SignedInUser {
  userId: string;
  connection: string;
  amr: string[];
}

export interface SignInDeps extends IssueDeps {
  sessions: Sessions;
}

export interface StartedSession {
  /** The new session's cookie value. */
  handle: string;
  session: Session;
  /** The authorization code stored with the session, when the request asked for one. */
  issued?: IssuedGrant;
}

interface SignInInput {
  client: CachedClient;
  /** Undefined when the answer is not an OAuth one (SAML). */
  authorization: AuthorizeRequest | undefined;
  /** The cookie value of the browser's session before this sign-in, if it had one. */
  earlierSession: string | undefined;
  /** The sign-in stages left a screen before the answer (consent, the organization): the session starts, the code waits. */
  answerLater?: boolean | undefined;
  /** The browser's address and User-Agent, kept with the session for administrators to see. */
  origin?: { ip: string; userAgent?: string | undefined } | undefined;
}

/** Spends what signs the user in (a login transaction, a login ticket); undefined when nothing is left to spend. */
type Spend = (repos: Repositories) => Promise<SignedInUser | undefined>;

/**
 * Starts the SSO session of a user who has just authenticated, in one commit with everything the sign-in
 * changes: what it spends, the end of the browser's earlier session, and the authorization code when the
 * authorization request asks for one. A failure anywhere leaves all of it as it was: the login can be completed
 * again, and there is never a session without its code or a spent login without a session.
 *
 * `user` is the user already authenticated, or a `Spend` that runs first in the commit; when it finds nothing to
 * spend, nothing is written and the answer is undefined.
 */
export function startSession(deps: SignInDeps, input: SignInInput & { user: SignedInUser }): Promise<StartedSession>;
export function startSession(deps: SignInDeps, input: SignInInput & { user: Spend }): Promise<StartedSession | undefined>;
export async function startSession(deps: SignInDeps, input: SignInInput & { user: SignedInUser | Spend }): Promise<StartedSession | undefined> {
  const { user: who } = input;
  const lifetimes = await deps.sessions.lifetimes();
  return deps.storage.transaction(async (repos) => {
    const user = typeof who === 'function' ? await who(repos) : who;
    if (!user) return undefined;
    await deps.sessions.end(input.earlierSession, repos);
    const started = await deps.sessions.create({ ...user, clientId: input.client.clientId, origin: input.origin }, repos, lifetimes);
    if (!input.authorization || input.answerLater) return started;
    return { ...started, issued: await issueCode(input.authorization, input.client, started.session.data, deps, repos) };
  });
}
