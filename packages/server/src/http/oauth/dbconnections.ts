import { Type } from '@sinclair/typebox';
import { sendSignupVerification } from '../login/email-verification.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Registry } from '../../registry.js';
import { databaseSignup, SIGNUP_PROFILE_FIELDS, signupEvent, type SignupFailure } from '../../services/database-signup.js';
import { sendPasswordResetLink } from '../../services/password-reset.js';
import { requestOrigin } from '../request-origin.js';
import { dbConnectionsError, type DbConnectionsError } from './dbconnections-errors.js';

const Profile = {
  given_name: Type.Optional(Type.String({ maxLength: 150 })),
  family_name: Type.Optional(Type.String({ maxLength: 150 })),
  name: Type.Optional(Type.String({ maxLength: 300 })),
  nickname: Type.Optional(Type.String({ maxLength: 300 })),
  picture: Type.Optional(Type.String({ maxLength: 2048 })),
} satisfies Record<(typeof SIGNUP_PROFILE_FIELDS)[number], unknown>;

const SignupBody = Type.Object(
  {
    client_id: Type.String({ minLength: 1, maxLength: 128 }),
    connection: Type.String({ minLength: 1, maxLength: 128 }),
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    username: Type.Optional(Type.String({ maxLength: 128 })),
    ...Profile,
    // The platform's limits for metadata given at signup: ten properties, strings of up to 500 characters.
    user_metadata: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 500 }), { maxProperties: 10 })),
  },
  // The library adds what the caller passed (state, captcha, ...); unknown fields are dropped, not refused.
  { additionalProperties: true },
);

const ChangePasswordBody = Type.Object(
  {
    client_id: Type.String({ minLength: 1, maxLength: 128 }),
    connection: Type.String({ minLength: 1, maxLength: 128 }),
    email: Type.String({ minLength: 1, maxLength: 320 }),
  },
  { additionalProperties: true },
);

/** The platform's error body of the `/dbconnections` calls; the browser library reads `code`, `description`, `name`, `policy`. */
const DbErrorBody = Type.Object(
  {
    name: Type.String(),
    code: Type.String(),
    description: Type.Union([Type.String(), Type.Object({ rules: Type.Array(Type.Unknown()), verified: Type.Boolean() })]),
    message: Type.Optional(Type.String()),
    policy: Type.Optional(Type.String()),
    statusCode: Type.Integer(),
  },
  { additionalProperties: false },
);

/**
 * A 429: the Authentication API's rate limit refuses in its own shape (plugins/rate-limits.ts) before the route runs;
 * signup throttling (attack protection) refuses in the route's own shape.
 */
const RateLimited = Type.Union([Type.Object({ error: Type.String(), error_description: Type.String() }), DbErrorBody]);

const SignupAnswer = Type.Object(
  {
    _id: Type.String({ description: 'The user id without its `auth0|` prefix.' }),
    email: Type.String(),
    email_verified: Type.Boolean(),
    username: Type.Optional(Type.String()),
    ...Profile,
    user_metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

function failureBody(failure: SignupFailure): DbConnectionsError {
  switch (failure.kind) {
    case 'unknown_client':
      return dbConnectionsError('invalid_client', 'Unknown client.');
    case 'unknown_connection':
      return dbConnectionsError('connection_not_found', 'The connection does not exist or is not enabled for this application.');
    case 'signup_disabled':
      return dbConnectionsError('unauthorized', 'Public signup is disabled for this connection.');
    case 'invalid_signup':
      return dbConnectionsError('invalid_signup', failure.description);
    case 'weak_password':
      return dbConnectionsError('invalid_password', { rules: failure.rules, verified: false }, 'Password is too weak', failure.policy);
    case 'common_password':
      return dbConnectionsError('password_dictionary_error', 'Password is too common', 'Password is too common');
    case 'personal_password':
      return dbConnectionsError('password_no_user_info_error', 'Password is based on user information', 'Password is based on user information');
    case 'password_leaked':
      return dbConnectionsError('password_leaked', 'This password was disclosed in a data breach (not in this application): choose another one.');
    case 'too_many_signups':
      return dbConnectionsError('too_many_attempts', 'We have detected suspicious signup behavior and further attempts will be blocked. Please contact the administrator.');
    case 'user_exists':
      return dbConnectionsError('user_exists', 'The user already exists.');
    case 'username_exists':
      return dbConnectionsError('username_exists', 'The username already exists.');
    case 'extensibility_error':
      return dbConnectionsError('extensibility_error', failure.userMessage ?? 'The signup was refused.');
  }
}

function sendFailure(reply: FastifyReply, failure: SignupFailure) {
  const { status, ...body } = failureBody(failure);
  return reply.code(status).send({ ...body, statusCode: status });
}

/**
 * `POST /dbconnections/signup` and `POST /dbconnections/change_password`: what the browser library's `signup`
 * and `changePassword` call (JSON, CORS from the application's origins). Their errors keep the platform's own
 * body (`name`, `code`, `description`, `statusCode`), which the library turns into its error object.
 */
export function dbConnectionsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const signups = databaseSignup({
    storage: registry.storage,
    config: registry.oauthConfig,
    tenantId: registry.tenantId,
    breached: registry.breached,
    attackProtection: registry.attackProtection,
    protection: registry.loginProtection,
    now: registry.now,
    lifecycle: registry.actionTriggers.lifecycle,
  });
  const tags = ['authentication'];

  return async (app) => {
    // Schema failures keep this family too (the Authentication API's handler would answer `{error, ...}`).
    const invalidBody = (reply: FastifyReply, message: string) => sendFailure(reply, { kind: 'invalid_signup', description: message });

    app.post(
      '/dbconnections/signup',
      { attachValidation: true, schema: { tags, summary: 'Sign up to a database connection', body: SignupBody, response: { 200: SignupAnswer, 429: RateLimited, '4xx': DbErrorBody } } },
      async (request, reply) => {
        if (request.validationError) return invalidBody(reply, request.validationError.message);
        const body = request.body;
        const profile = Object.fromEntries(SIGNUP_PROFILE_FIELDS.flatMap((field) => (typeof body[field] === 'string' ? [[field, body[field]]] : [])));
        const result = await signups.signup({
          clientId: body.client_id,
          connection: body.connection,
          email: body.email,
          password: body.password,
          username: body.username,
          profile,
          userMetadata: body.user_metadata,
          ip: request.ip,
          origin: requestOrigin(request),
        });
        registry.events.record(signupEvent(result, { clientId: body.client_id, connection: body.connection, email: body.email, origin: requestOrigin(request) }));
        if (!result.ok) return sendFailure(reply, result.failure);
        const { user } = result;
        const client = await registry.oauthConfig.client(body.client_id);
        await sendSignupVerification(registry, request, {
          userId: user.user_id,
          email: user.email,
          emailVerified: user.email_verified,
          connection: body.connection,
          clientId: body.client_id,
          clientName: client?.data.name ?? '',
        });
        return {
          _id: user.user_id.replace(/^auth0\|/, ''),
          email: user.email ?? body.email,
          email_verified: user.email_verified,
          ...(user.username ? { username: user.username } : {}),
          ...profile,
          ...(Object.keys(user.user_metadata).length > 0 ? { user_metadata: user.user_metadata } : {}),
        };
      },
    );

    app.post(
      '/dbconnections/change_password',
      { attachValidation: true, schema: { tags, summary: 'E-mail a password reset link', body: ChangePasswordBody, response: { 200: Type.String(), 429: RateLimited, '4xx': DbErrorBody } } },
      async (request, reply) => {
        if (request.validationError) return invalidBody(reply, request.validationError.message);
        const { client_id: clientId, connection: name, email } = request.body;
        const found = await signups.connectionFor(clientId, name);
        if (!found.ok) return sendFailure(reply, found.failure);
        await sendPasswordResetLink(
          { storage: registry.storage, tenantId: registry.tenantId, resets: registry.passwordResets, notifier: registry.notifier, events: registry.events },
          { connection: found.connection.name, email, clientId, clientName: found.client.data.name, origin: requestOrigin(request) },
        );
        // The same answer whether or not the address has an account.
        return reply.type('text/plain; charset=utf-8').send("We've just sent you an email to reset your password.");
      },
    );
  };
}
