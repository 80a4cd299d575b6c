import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authorizeAuthenticated } from '../../oauth/authorize/flow.js';
import { InvalidRequest, OAuthError } from '../../oauth/errors.js';
import { otpFailure } from '../../oauth/grants/passwordless-otp.js';
import type { Registry } from '../../registry.js';
import type { PasswordlessStartFailure } from '../../services/passwordless.js';
import { sessionHandle } from '../login/cookies.js';
import { authorizeDeps } from '../login/transaction-context.js';
import { sendErrorPage } from '../login/pages.js';
import { AuthorizeParams, sendOutcome } from './authorize.js';
import { requestOrigin } from '../request-origin.js';
import { originFields } from '../../services/events/event.js';

const text = (description: string, maxLength = 320) => Type.Optional(Type.String({ description, maxLength }));

const StartBody = Type.Object(
  {
    client_id: Type.String({ minLength: 1, maxLength: 128 }),
    connection: Type.String({ minLength: 1, maxLength: 128, description: 'A passwordless connection (strategy email or sms).' }),
    email: text('For an email connection.'),
    phone_number: text('For an sms connection, in E.164 (+15551234567).', 32),
    send: Type.Optional(Type.Union([Type.Literal('code'), Type.Literal('link')], { description: 'code, or link (e-mail only; the default for e-mail).' })),
    authParams: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 30, description: 'Authorization parameters a magic link carries (response_type, redirect_uri, scope, state, nonce, ...).' })),
  },
  { additionalProperties: true },
);

/** A magic link: the authorization request it completes, and the code it spends for one address. */
const MagicLinkQuery = Type.Object(
  {
    ...AuthorizeParams.properties,
    verification_code: text('The one-time code the link carries.'),
    email: text('The address the link was sent to (email connections).'),
    phone_number: text('The number the code was sent to (sms connections).'),
  },
  { additionalProperties: true },
);

const VerifyBody = Type.Object(
  {
    client_id: Type.String({ minLength: 1, maxLength: 128 }),
    connection: Type.String({ minLength: 1, maxLength: 128 }),
    verification_code: Type.String({ minLength: 1, maxLength: 16 }),
    email: text('For an email connection.'),
    phone_number: text('For an sms connection.', 32),
  },
  { additionalProperties: true },
);

const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });
const Started = Type.Object(
  {
    _id: Type.String(),
    email: Type.Optional(Type.String()),
    email_verified: Type.Optional(Type.Boolean()),
    phone_number: Type.Optional(Type.String()),
    phone_verified: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** Parameters of a magic link that are the link's own, not authorization parameters. */
const LINK_OWN = new Set(['client_id', 'connection', 'email', 'phone_number', 'verification_code']);

function startFailure(failure: PasswordlessStartFailure, field: 'email' | 'phone_number'): OAuthError {
  switch (failure) {
    case 'unknown_client':
      return new OAuthError('invalid_client', 'Unknown client.', 401);
    case 'unknown_connection':
      return new OAuthError('bad.connection', 'The connection does not exist or is not a passwordless connection enabled for this application.', 400);
    case 'bad_email':
      return new OAuthError('bad.email', 'The e-mail address is not valid.', 400);
    case 'bad_phone_number':
      return new OAuthError('bad.phone_number', 'The phone number is not valid: use the international format, e.g. +15551234567.', 400);
    case 'signup_disabled':
      return new OAuthError('access_denied', 'Public signup is disabled for this connection.', 403);
    case 'wrong_address_field':
      return new InvalidRequest(field === 'email' ? 'This connection sends to a phone_number.' : 'This connection sends to an email.');
    case 'link_by_sms':
      return new InvalidRequest('Magic links go by e-mail only: use send=code for text messages.');
  }
}

/** Exactly one of e-mail and phone number. */
function addressOf(body: { email?: string | undefined; phone_number?: string | undefined }): string {
  if ((body.email === undefined) === (body.phone_number === undefined)) throw new InvalidRequest('Give exactly one of email and phone_number.');
  return body.email ?? body.phone_number ?? '';
}

/**
 * Passwordless login (`POST /passwordless/start`, `POST /passwordless/verify`, `GET /passwordless/verify_redirect`):
 * the browser library's `passwordlessStart` and, on the hosted pages, `passwordlessLogin`. Elsewhere the
 * library completes through `/co/authenticate` or the token endpoint with the one-time code.
 */
export function passwordlessRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const service = registry.userGrants.passwordless;
  const tags = ['authentication'];

  return async (app) => {
    app.post(
      '/passwordless/start',
      { schema: { tags, summary: 'Send a one-time code or magic link', body: StartBody, response: { 200: Started, '4xx': OAuthErrorBody } } },
      async (request, reply) => {
        const body = request.body;
        const address = addressOf(body);
        const field = body.email !== undefined ? 'email' : 'phone_number';
        const started = await service.start({ clientId: body.client_id, connection: body.connection, address, field, send: body.send });
        if (!started.ok) throw startFailure(started.failure, field);
        const { connection, identifier, code, clientName, minutes } = started;
        const isEmail = connection.strategy === 'email';
        const send = body.send ?? (isEmail ? 'link' : 'code');
        if (send === 'code') {
          await registry.notifier.verificationCode({ ...(isEmail ? { email: identifier } : { phoneNumber: identifier }), code, clientName, minutes });
        } else {
          const params = new URLSearchParams({ client_id: body.client_id, connection: connection.name, email: identifier, verification_code: code });
          for (const [name, value] of Object.entries(body.authParams ?? {})) {
            if (typeof value === 'string' && !LINK_OWN.has(name)) params.set(name, value);
          }
          await registry.notifier.magicLink({ email: identifier, url: `${registry.issuer}/passwordless/verify_redirect?${params.toString()}`, clientName, minutes });
        }
        const origin = originFields(requestOrigin(request));
        registry.events.record({ type: send === 'code' ? 'cs' : 'cls', client_id: body.client_id, connection: connection.name, user_name: identifier, ...origin });
        reply.header('cache-control', 'no-store');
        return isEmail ? { _id: started.id, email: identifier, email_verified: false } : { _id: started.id, phone_number: identifier, phone_verified: false };
      },
    );

    app.post(
      '/passwordless/verify',
      { schema: { tags, summary: 'Check a one-time code before the redirect that spends it', body: VerifyBody, response: { 200: Type.Object({}), '4xx': OAuthErrorBody } } },
      async (request, reply) => {
        const body = request.body;
        const address = addressOf(body);
        const checked = await service.check({ clientId: body.client_id, connection: body.connection, address, code: body.verification_code, spend: false });
        if (!checked.ok) throw otpFailure(checked.failure, body.phone_number !== undefined ? 'sms' : 'email');
        return reply.header('cache-control', 'no-store').send({});
      },
    );

    app.get(
      '/passwordless/verify_redirect',
      // A link that was tampered with is answered with the error page, as /authorize answers one.
      { attachValidation: true, schema: { tags, summary: 'Spend a one-time code (magic link) and answer the authorization request', querystring: MagicLinkQuery } },
      async (request, reply) => {
        if (request.validationError) return sendErrorPage(registry, reply, 400, 'invalid_request', 'Each parameter may be given once, as text.');
        const raw = request.query as Record<string, unknown>;
        const authorizeParams = Object.fromEntries(Object.entries(raw).filter(([name]) => name !== 'verification_code' && name !== 'email' && name !== 'phone_number'));
        const outcome = await authorizeAuthenticated(authorizeParams, { sessionHandle: sessionHandle(request), origin: requestOrigin(request) }, authorizeDeps(registry), 'passwordless-link', async (authorization) => {
          const address = typeof raw.email === 'string' ? raw.email : typeof raw.phone_number === 'string' ? raw.phone_number : '';
          const code = typeof raw.verification_code === 'string' ? raw.verification_code : '';
          if (!address || !code || !authorization.connection) throw new InvalidRequest('A magic link carries connection, verification_code and email or phone_number.');
          const checked = await service.check({ clientId: authorization.clientId, connection: authorization.connection, address, code, spend: true, ip: request.ip });
          if (!checked.ok) {
            // The authorization endpoint has no invalid_grant (RFC 6749 4.1.2.1): a bad code is access_denied there.
            const failure = otpFailure(checked.failure, typeof raw.phone_number === 'string' ? 'sms' : 'email');
            // A magic link that does not sign in is a failed login (`f`), named by its address, never its code.
            registry.events.record({
              type: 'f',
              description: failure.description,
              client_id: authorization.clientId,
              ...(checked.failure !== 'unknown_connection' ? { connection: authorization.connection } : {}),
              user_name: address,
              ...originFields(requestOrigin(request)),
              details: { error: failure.error, failure: checked.failure, path: 'passwordless-link' },
            });
            throw failure.error === 'invalid_grant' ? new OAuthError('access_denied', failure.description, 403) : failure;
          }
          return { userId: checked.userId ?? '', connection: checked.connection.name, amr: ['otp'] };
        });
        return sendOutcome(registry, reply, outcome, authorizeParams);
      },
    );
  };
}
