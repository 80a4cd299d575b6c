import type { FastifyReply } from 'fastify';
import { OAuthError } from '../../oauth/errors.js';
import type { Registry } from '../../registry.js';
import { sendAnswer } from '../oauth/answer-pages.js';
import type { PageErrorCode } from './page-errors.js';
import { alternateConnectionsFor } from './alternate-connections.js';
import { refuseLogin, type OpenTransaction } from './transaction-context.js';

/**
 * A `connection` posted on a login or signup screen (our buttons, the SDK's `federatedLogin({connection})` and
 * `federatedSignup({connection})`): the login goes on at that connection's provider, exactly as
 * `/authorize?connection=` starts it, and comes back through `/login/callback` in the same transaction. A connection
 * the screen does not offer re-renders it with `invalid-connection`; a connection that cannot start (misconfigured,
 * its provider unreachable) ends the login with the error sent to the application, as `/authorize` does.
 */
export async function startFederatedLogin(
  registry: Registry,
  reply: FastifyReply,
  open: OpenTransaction,
  name: string,
  refused: (errorCode: PageErrorCode) => Promise<FastifyReply>,
): Promise<FastifyReply> {
  const connection = (await alternateConnectionsFor(registry, open.transaction)).find((candidate) => candidate.name === name);
  if (!connection) return refused('invalid-connection');
  try {
    return sendAnswer(reply, await registry.upstream.begin(open.handle, open.transaction, connection));
  } catch (error) {
    if (error instanceof OAuthError) return refuseLogin(registry, reply, open, error);
    throw error;
  }
}
