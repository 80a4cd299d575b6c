import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Registry } from '../../registry.js';
import type { ConnectionData } from '../../services/connections.js';
import type { OtpFailure, PasswordlessStartFailure } from '../../services/passwordless.js';
import { sendScreen, type ScreenInput } from './pages.js';
import type { PageErrorCode } from './page-errors.js';
import { screenUrl } from './screens.js';
import { ScreenForm, StateQuery } from './screen-forms.js';
import { finishLogin, openScreenPost, openTransaction, type OpenTransaction } from './transaction-context.js';
import { usableConnections } from './organization-connections.js';

type ChallengeScreen = 'login-passwordless-email-code' | 'login-passwordless-sms-otp';

const CodeForm = ScreenForm({ code: Type.Optional(Type.String({ maxLength: 32 })), username: Type.Optional(Type.String({ maxLength: 512 })) });

const START_REFUSALS: Record<PasswordlessStartFailure, PageErrorCode> = {
  unknown_client: 'invalid-connection',
  unknown_connection: 'invalid-connection',
  bad_email: 'invalid-email-format',
  bad_phone_number: 'invalid-phone-number',
  signup_disabled: 'signup-disabled',
  wrong_address_field: 'invalid-connection',
  link_by_sms: 'invalid-connection',
};

const CODE_REFUSALS: Record<OtpFailure, PageErrorCode> = {
  unknown_connection: 'invalid-connection',
  wrong_code: 'invalid-verification-code',
  too_many_tries: 'invalid-expired-code',
  blocked: 'user-blocked',
  signup_disabled: 'signup-disabled',
};

const challengeOf = (connection: Pick<ConnectionData, 'strategy'>): ChallengeScreen =>
  connection.strategy === 'sms' ? 'login-passwordless-sms-otp' : 'login-passwordless-email-code';

/**
 * The passwordless connection a transaction logs in with when no database connection can: the one the
 * authorization request names, else the application's first e-mail connection, else its first SMS one.
 */
export async function passwordlessConnection(registry: Registry, open: OpenTransaction): Promise<ConnectionData | undefined> {
  const service = registry.userGrants.passwordless;
  const named = open.transaction.request.connection;
  const found = named !== undefined ? await service.connectionFor(open.client.clientId, named) : await service.firstConnectionFor(open.client.clientId);
  // In a login to an organization, only a connection of the organization's.
  return found && (await usableConnections(registry, open.transaction, [found]))[0];
}

/** Sends a one-time code to `address` and moves the transaction to the screen that takes it. */
export async function startPasswordless(
  registry: Registry,
  reply: FastifyReply,
  open: OpenTransaction,
  connection: ConnectionData,
  address: string,
  refused: (errorCode: PageErrorCode) => Promise<FastifyReply>,
): Promise<FastifyReply> {
  const field = connection.strategy === 'sms' ? 'phone_number' : 'email';
  const started = await registry.userGrants.passwordless.start({ clientId: open.client.clientId, connection: connection.name, address, field, send: 'code' });
  if (!started.ok) return refused(START_REFUSALS[started.failure]);
  const { identifier, code, clientName, minutes } = started;
  await registry.notifier.verificationCode({ ...(field === 'email' ? { email: identifier } : { phoneNumber: identifier }), code, clientName, minutes });
  const strategy = connection.strategy === 'sms' ? 'sms' : 'email';
  await registry.transactions.save(open.handle, { ...open.transaction, passwordless: { connection: connection.name, strategy, address: identifier } });
  return reply.header('cache-control', 'no-store').redirect(screenUrl(challengeOf(connection), open.transaction), 302);
}

/** The screens that take the one-time code sent by `login-id` (`action=resend` sends a new one). */
export function passwordlessScreenRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const screenOf = (open: OpenTransaction, screen: ChallengeScreen, extra: Partial<ScreenInput> = {}): ScreenInput => {
    const sent = open.transaction.passwordless;
    return {
      screen,
      client: open.client,
      transaction: open.transaction,
      action: screenUrl(screen, open.transaction),
      screenData: screen === 'login-passwordless-sms-otp' ? { username: sent?.address ?? '', phone_number: sent?.address ?? '' } : { username: sent?.address ?? '', email: sent?.address ?? '' },
      ...(sent ? { connection: { name: sent.connection, strategy: sent.strategy, options: {} } } : {}),
      links: screen === 'login-passwordless-sms-otp' ? { back: screenUrl('login-id', open.transaction) } : { edit_identifier: screenUrl('login-id', open.transaction) },
      ...extra,
    };
  };

  return async (app) => {
    const tags = ['hosted pages'];
    for (const screen of ['login-passwordless-email-code', 'login-passwordless-sms-otp'] as const) {
      const path = screenUrl(screen, { publicId: '' }).split('?')[0] ?? '';

      app.get(path, { schema: { tags, summary: `One-time code screen (${screen})`, querystring: StateQuery } }, async (request, reply) => {
        const open = await openTransaction(registry, request, reply, request.query.state);
        if (!open) return reply;
        if (open.transaction.passwordless === undefined) return reply.header('cache-control', 'no-store').redirect(screenUrl('login-id', open.transaction), 302);
        return sendScreen(registry, reply, 200, screenOf(open, screen));
      });

      app.post(path, { attachValidation: true, schema: { tags, summary: `Submit the one-time code (${screen})`, querystring: Type.Partial(StateQuery), body: CodeForm } }, async (request, reply) => {
        const open = await openScreenPost(registry, request, reply, screen);
        if (!open) return reply;
        const sent = open.transaction.passwordless;
        if (!sent) return reply.header('cache-control', 'no-store').redirect(screenUrl('login-id', open.transaction), 302);
        const connection = await registry.userGrants.passwordless.connectionFor(open.client.clientId, sent.connection);
        if (!connection) return sendScreen(registry, reply, 400, screenOf(open, screen, { errorCode: 'invalid-connection' }));
        if (request.body.action === 'resend') {
          return startPasswordless(registry, reply, open, connection, sent.address, (errorCode) => sendScreen(registry, reply, 400, screenOf(open, screen, { errorCode })));
        }
        const code = (request.body.code ?? '').trim();
        if (!code) return sendScreen(registry, reply, 400, screenOf(open, screen, { errorCode: 'no-code', errorField: 'code' }));
        const checked = await registry.userGrants.passwordless.check({ clientId: open.client.clientId, connection: sent.connection, address: sent.address, code, spend: true, ip: request.ip });
        if (!checked.ok) return sendScreen(registry, reply, 400, screenOf(open, screen, { errorCode: CODE_REFUSALS[checked.failure], errorField: 'code' }));
        if (!checked.userId) return sendScreen(registry, reply, 400, screenOf(open, screen, { errorCode: 'invalid-verification-code', errorField: 'code' }));
        return finishLogin(registry, request, reply, open, { path: 'login-page', userId: checked.userId, connection: checked.connection.name, amr: ['otp'] });
      });
    }
  };
}
