import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from '../../registry.js';
import { passkeySettingsOf } from '../../services/connection-options/passkeys.js';
import type { ConnectionData } from '../../services/connections.js';
import { originFields } from '../../services/events/event.js';
import { requestOrigin } from '../request-origin.js';
import type { PageErrorCode } from './page-errors.js';
import type { ScreenInput } from './pages.js';
import type { Tree } from './render/model.js';
import { finishLogin, type OpenTransaction } from './transaction-context.js';
import { credentialOf } from './webauthn-form.js';

/**
 * The `amr` of a passkey login (RFC 8176): the key (`hwk`, or `swk` for a synced passkey), and `mfa` when the
 * authenticator verified the user (biometric or device PIN). Such a passkey is two factors in one ceremony, a
 * device the user has and what unlocks it, and it is phishing-resistant (the browser binds it to our origin), so
 * a tenant policy or an `acr_values` asking for multi-factor is satisfied by it, as by a password and a second
 * factor. Without user verification it proves possession only: a policy then asks for a second factor.
 */
export const passkeyAmr = (keyAmr: readonly string[], userVerified: boolean): string[] => [...keyAmr, ...(userVerified ? ['mfa'] : [])];

/**
 * login-id's passkey login, when the connection enables passkeys: WebAuthn request options for a discoverable
 * credential (none listed: the browser offers the passkeys it holds for us), whose challenge the transaction keeps
 * for one answer. Each showing of the screen makes a new one.
 */
export async function passkeyLoginOffer(registry: Registry, open: OpenTransaction, connection: ConnectionData | undefined): Promise<Partial<ScreenInput>> {
  if (!connection) return {};
  const settings = passkeySettingsOf(connection);
  if (!settings.enabled) return {};
  const ceremony = await registry.mfa.webauthn.authenticationOptions();
  await registry.transactions.save(open.handle, { ...open.transaction, passkeyLogin: { challenge: ceremony.challenge } });
  return { passkeyLogin: { publicKey: ceremony.options as unknown as Tree, challengeUi: settings.challengeUi } };
}

/**
 * A passkey posted on login-id (`passkey=<assertion JSON>`): verified against the challenge the screen showed
 * (spent whatever the outcome), the credential a passkey of a user of this connection; then the login goes on
 * through the sign-in stages like a password login, with the passkey's `amr`. A refusal shows login-id again.
 */
export async function passkeyLogin(
  registry: Registry,
  request: FastifyRequest,
  reply: FastifyReply,
  open: OpenTransaction,
  connection: ConnectionData | undefined,
  posted: string,
  again: (open: OpenTransaction, errorCode: PageErrorCode) => Promise<FastifyReply>,
): Promise<FastifyReply> {
  if (!connection || !passkeySettingsOf(connection).enabled) return again(open, 'passkey-not-allowed');
  const expected = open.transaction.passkeyLogin?.challenge;
  const { passkeyLogin: _spent, ...rest } = open.transaction;
  await registry.transactions.save(open.handle, rest);
  const current = { ...open, transaction: rest };
  const refused = (reason: string) => {
    registry.events.record({ type: 'f', client_id: open.client.clientId, connection: connection.name, description: `Passkey: ${reason}`, ...originFields(requestOrigin(request)) });
    return again(current, 'passkey-authentication-failed');
  };
  const credential = credentialOf(posted);
  if (!expected || !credential) return refused('no challenge or credential');
  // Without a user: only a passkey (discoverable credential) signs in alone, never a second factor's key.
  const proved = await registry.mfa.webauthn.verifyAuthentication({ expectedChallenge: expected, response: credential as never });
  if (!proved.ok) return refused(proved.reason);
  const user = await registry.storage.users.get(registry.tenantId, proved.userId);
  if (!user || user.columns.connection !== connection.name) return refused('the credential belongs to no user of this connection');
  const account = { blocked: user.data.blocked, email: user.data.email, username: user.columns.username ?? undefined };
  return finishLogin(registry, request, reply, current, { path: 'login-page', userId: proved.userId, connection: connection.name, amr: passkeyAmr(proved.amr, proved.userVerified), account });
}
