import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { attemptOf, crossOriginAuthenticate, invalidBody, refuseCrossOrigin } from '../../oauth/cross-origin-login.js';
import { AccessDenied, InvalidRequest } from '../../oauth/errors.js';
import type { Registry } from '../../registry.js';
import { setCoVerifierCookie } from '../login/cookies.js';
import { requestOrigin } from '../request-origin.js';

// The schema documents and bounds the fields; whatever it refuses, the protocol core refuses again in the
// platform's own wording (it gets the raw body), so the answer is the same either way.
const field = (description: string, maxLength = 1024) => Type.Optional(Type.String({ description, maxLength }));
const AuthenticateBody = Type.Object(
  {
    client_id: field('The application (cross-origin authentication on).', 128),
    credential_type: field('http://auth0.com/oauth/grant-type/password-realm or http://auth0.com/oauth/grant-type/passwordless/otp.', 128),
    username: field('E-mail address or username.', 512),
    password: field('password-realm: the password.'),
    otp: field('passwordless/otp: the one-time code.', 64),
    realm: field('The connection.', 128),
  },
  { additionalProperties: true },
);
/** Fastify's codes for a JSON body it could not read. */
const UNREADABLE_BODY = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY']);
const Ticket = Type.Object({ login_ticket: Type.String(), co_verifier: Type.String(), co_id: Type.String() });
const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });
const VerifyBody = Type.Object(
  { login_ticket: Type.String({ minLength: 1, maxLength: 128 }), co_verifier: Type.String({ maxLength: 128 }) },
  { additionalProperties: false },
);

/**
 * Cross-origin login: `POST /co/authenticate` (the browser library's `login`, CORS with credentials from the
 * application's origins) and `POST /co/verify` (our own verification page hands back the verifier it read
 * through the application's page when third-party cookies are blocked).
 */
export function crossOriginRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  const ownOrigin = new URL(registry.issuer).origin;
  return async (app) => {
    app.post(
      '/co/authenticate',
      {
        attachValidation: true,
        schema: { tags: ['authentication'], summary: 'Cross-origin login', body: AuthenticateBody, response: { 200: Ticket, '4xx': OAuthErrorBody } },
        // A body that is not JSON at all is a bad body too, in the same words (the surface's handler shapes it),
        // and a refused attempt like any other (`fcoa`).
        errorHandler: (error, request) => {
          if (UNREADABLE_BODY.has(error.code)) throw refuseCrossOrigin(invalidBody(undefined), {}, requestOrigin(request), registry.events);
          throw error;
        },
      },
      async (request, reply) => {
        const raw: unknown = request.body;
        const body = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
        const origin = requestOrigin(request);
        // Strings beyond a length bound (anything else the core refuses again): the core's wording for a bad body.
        if (request.validationError && Object.values(body).every((value) => typeof value === 'string')) {
          throw refuseCrossOrigin(invalidBody(body.credential_type), attemptOf(body), origin, registry.events);
        }
        const ticket = await crossOriginAuthenticate(body, origin, {
          config: registry.oauthConfig,
          databaseLogin: registry.userGrants.databaseLogin,
          passwordless: registry.userGrants.passwordless,
          loginTickets: registry.loginTickets,
          events: registry.events,
        });
        // When the browser keeps third-party cookies, /authorize finds the verifier here; otherwise the
        // application's verification page has it.
        setCoVerifierCookie(registry, reply, ticket.co_verifier);
        return reply.header('cache-control', 'no-store').send(ticket);
      },
    );

    app.post(
      '/co/verify',
      { attachValidation: true, schema: { tags: ['authentication'], summary: 'Hand back a cross-origin verifier (our verification page)', body: VerifyBody } },
      async (request, reply) => {
        // Only our own page calls this, with JSON: a form or a page elsewhere cannot plant a verifier.
        if (request.headers.origin !== ownOrigin) throw new AccessDenied('Only the verification page of this service may call /co/verify.');
        if (request.validationError) throw new InvalidRequest('Invalid request body. All and only of login_ticket, co_verifier are required.');
        const { login_ticket: loginTicket, co_verifier: verifier } = request.body;
        const data = await registry.loginTickets.findAny(loginTicket);
        if (!data || !registry.loginTickets.verifierMatches(data, verifier)) throw new AccessDenied('The login ticket is invalid, expired or was used already.');
        setCoVerifierCookie(registry, reply, verifier);
        return reply.code(204).send();
      },
    );
  };
}
