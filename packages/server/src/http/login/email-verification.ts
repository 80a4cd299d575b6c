import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Registry } from '../../registry.js';
import { sendVerificationEmail } from '../../services/email-verification.js';
import { originFields } from '../../services/events/event.js';
import { requestOrigin } from '../request-origin.js';
import { applicationLink } from './application-link.js';
import { sendScreen } from './pages.js';

const TicketQuery = Type.Object({ ticket: Type.Optional(Type.String({ maxLength: 128, description: 'The e-mail verification ticket.' })) });

/**
 * After a database signup: the link that verifies the new address. A failed send is logged (`fvr`) and does not
 * undo the signup, as the platform's does not.
 */
export async function sendSignupVerification(
  registry: Registry,
  request: FastifyRequest,
  input: { userId: string; email: string | undefined; emailVerified: boolean; connection: string; clientId: string; clientName: string },
): Promise<void> {
  if (!input.email || input.emailVerified) return;
  await sendVerificationEmail(
    { verifications: registry.emailVerifications, notifier: registry.notifier, events: registry.events },
    { userId: input.userId, email: input.email, connection: input.connection, clientId: input.clientId, clientName: input.clientName, extra: originFields(requestOrigin(request)), logSent: false },
  ).catch((error: unknown) => registry.log.error({ err: error, kind: 'email_verification' }, 'could not deliver an e-mail'));
}

/**
 * `/u/email-verification?ticket=`: the link of a verification e-mail. It spends the ticket, then redirects to the
 * ticket's `result_url` (with `success`, `message`, and `email` when asked) or renders `email-verification-result`
 * with `screen.data.status` (`success`, `already_verified`, `invalid_account_or_code`).
 */
export function emailVerificationRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/u/email-verification', { attachValidation: true, schema: { tags: ['hosted pages'], summary: 'Verify an e-mail address', querystring: TicketQuery } }, async (request, reply) => {
      const ticket = request.validationError ? undefined : request.query.ticket;
      const outcome = ticket ? await registry.emailVerifications.redeem(ticket) : { status: 'invalid_account_or_code' as const };
      const found = 'ticket' in outcome ? outcome.ticket : undefined;
      const logged = { ...(found ? { user_id: found.user_id, user_name: found.email } : {}), ...(found?.client_id ? { client_id: found.client_id } : {}), ...originFields(requestOrigin(request)) };
      const verified = outcome.status !== 'invalid_account_or_code';
      if (outcome.status === 'success') registry.events.record({ type: 'sv', ...logged });
      else if (!verified) registry.events.record({ type: 'fv', description: 'The verification link is not valid, was used already, or has expired.', ...logged });
      reply.header('cache-control', 'no-store');
      // The result URL is only known from a spent, valid ticket, so a failed link never redirects anywhere.
      if (verified && found?.result_url) {
        const target = new URL(found.result_url);
        target.searchParams.set('success', 'true');
        target.searchParams.set('code', outcome.status);
        target.searchParams.set('message', outcome.status === 'success' ? 'Your email was verified. You can continue using the application.' : 'This account is already verified.');
        if (found.include_email_in_redirect) target.searchParams.set('email', found.email);
        return reply.redirect(target.toString(), 302);
      }
      const client = found?.client_id ? await registry.oauthConfig.client(found.client_id) : undefined;
      // `screen.links.login`, which the platform's SDK reads as `loginLink`: back to the application, to log in there.
      const login = applicationLink(null, client);
      return sendScreen(registry, reply, verified ? 200 : 400, { screen: 'email-verification-result', client, screenData: { status: outcome.status }, links: login ? { login } : {} });
    });
  };
}
