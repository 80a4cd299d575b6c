import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { GUARDIAN_FACTORS } from '../../services/mfa/guardian-settings.js';
import { userFactors } from '../../services/mfa/user-factors.js';
import { listHandler } from './resource-handlers.js';
import { ERROR_RESPONSES, IdParams, listResponseSchema, NO_CONTENT_RESPONSES, PaginationQuery } from './schemas.js';

const enumOf = <T extends string>(values: readonly T[], description?: string) => Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

const Factor = Type.Object({ name: Type.String(), enabled: Type.Boolean(), trial_expired: Type.Boolean() });
const FactorParams = Type.Object({ name: enumOf(GUARDIAN_FACTORS, 'The factor.') });
const FactorBody = Type.Object({ enabled: Type.Boolean({ description: 'Whether users may use this factor.' }) }, { additionalProperties: false });
const Policies = Type.Array(enumOf(['all-applications', 'confidence-score'] as const), { maxItems: 1, description: '["all-applications"] (every login asks for a second factor) or [].' });
const Enrollment = Type.Object(
  {
    id: Type.String(),
    status: Type.String(),
    type: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    phone_number: Type.Optional(Type.String()),
    auth_method: Type.Optional(Type.String()),
    enrolled_at: Type.Optional(Type.String()),
    last_auth: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const TicketBody = Type.Object(
  {
    user_id: Type.String({ minLength: 1, maxLength: 300, description: 'The user who enrolls.' }),
    email: Type.Optional(Type.String({ maxLength: 300, description: 'Another address to send the ticket to.' })),
    send_mail: Type.Optional(Type.Boolean({ description: 'Not supported yet: the ticket URL is answered, never e-mailed.' })),
    email_locale: Type.Optional(Type.String({ maxLength: 20 })),
    factor: Type.Optional(enumOf(['push-notification', 'phone', 'email', 'otp', 'webauthn-roaming', 'webauthn-platform'] as const)),
    allow_multiple_enrollments: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const Ticket = Type.Object({ ticket_id: Type.String(), ticket_url: Type.String() });

const Method = Type.Object({
  id: Type.String(),
  type: Type.String(),
  confirmed: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String()),
  totp_secret: Type.Optional(Type.String()),
  phone_number: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  preferred_authentication_method: Type.Optional(Type.String()),
  authentication_methods: Type.Optional(Type.Array(Type.Object({ id: Type.String(), type: Type.String() }))),
  created_at: Type.String(),
  enrolled_at: Type.Optional(Type.String()),
  last_auth_at: Type.Optional(Type.String()),
});
const preferred = enumOf(['sms', 'voice'] as const, 'Phone methods: how codes are sent.');
const NewMethodFields = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'A label for the method.' })),
  totp_secret: Type.Optional(Type.String({ minLength: 16, maxLength: 128, description: 'totp: the Base32 secret.' })),
  phone_number: Type.Optional(Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: 'phone: an E.164 number.' })),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 300, description: 'email: the address codes go to.' })),
  preferred_authentication_method: Type.Optional(preferred),
};
const CreateMethodBody = Type.Object(
  { type: enumOf(['totp', 'phone', 'email', 'webauthn-roaming', 'passkey'] as const), ...NewMethodFields },
  { additionalProperties: true },
);
const ReplaceMethodsBody = Type.Array(Type.Object({ type: enumOf(['totp', 'phone', 'email'] as const), ...NewMethodFields }, { additionalProperties: false }), { maxItems: 20 });
const UpdateMethodBody = Type.Object({ name: NewMethodFields.name, preferred_authentication_method: Type.Optional(preferred) }, { additionalProperties: false });
const UserParams = IdParams('User id, e.g. auth0|abc (the | may be URL-encoded as %7C).', 300);
const MethodParams = Type.Object({ id: UserParams.properties.id, method_id: Type.String({ minLength: 1, maxLength: 200, description: 'The authentication method, e.g. totp|dev_…' }) });
const PageQuery = Type.Object(PaginationQuery, { additionalProperties: false });
const tags = ['guardian'];
const userTags = ['users'];

/**
 * The multi-factor part of the Management API, with the platform's paths, bodies and scopes: the factors and the
 * policy (`/guardian/factors`, `/guardian/policies`), Guardian enrollments and their tickets, and a user's
 * enrollments, authentication methods, recovery code and remembered browsers.
 */
export function guardianRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const settings = registry.mfa.settings;
    const factors = userFactors({
      storage: registry.storage,
      tenantId: registry.tenantId,
      issuer: registry.issuer,
      authenticators: registry.mfa.authenticators,
      events: registry.events,
      handleKey: registry.handleKey,
      now: registry.userGrants.now,
    });

    app.get(
      '/guardian/factors',
      { config: { scopes: ['read:guardian_factors'] }, schema: { tags, summary: 'List the multi-factor factors and whether each is enabled', response: { 200: Type.Array(Factor), ...ERROR_RESPONSES } } },
      async () => settings.factors(),
    );
    app.put(
      '/guardian/factors/:name',
      {
        config: { scopes: ['update:guardian_factors'] },
        schema: { tags, summary: 'Enable or disable a factor (push-notification and duo cannot be enabled)', params: FactorParams, body: FactorBody, response: { 200: FactorBody, ...ERROR_RESPONSES } },
      },
      async (request) => settings.setFactor(request.params.name, request.body.enabled),
    );
    app.get(
      '/guardian/policies',
      { config: { scopes: ['read:mfa_policies'] }, schema: { tags, summary: 'Get the multi-factor policy', response: { 200: Policies, ...ERROR_RESPONSES } } },
      async () => settings.policies(),
    );
    app.put(
      '/guardian/policies',
      { config: { scopes: ['update:mfa_policies'] }, schema: { tags, summary: 'Set the multi-factor policy', body: Policies, response: { 200: Policies, ...ERROR_RESPONSES } } },
      async (request) => settings.setPolicies(request.body),
    );
    app.post(
      '/guardian/enrollments/ticket',
      {
        config: { scopes: ['create:guardian_enrollment_tickets'] },
        schema: { tags, summary: 'Create a multi-factor enrollment ticket (the hosted enrollment page is announced, not there yet)', body: TicketBody, response: { 200: Ticket, ...ERROR_RESPONSES } },
      },
      async (request) => factors.enrollmentTicket(request.body),
    );
    app.get(
      '/guardian/enrollments/:id',
      { config: { scopes: ['read:guardian_enrollments'] }, schema: { tags, summary: 'Get a Guardian enrollment', params: IdParams('The enrollment id (dev_…).', 200), response: { 200: Enrollment, ...ERROR_RESPONSES } } },
      async (request) => factors.guardianEnrollment(request.params.id),
    );
    app.delete(
      '/guardian/enrollments/:id',
      { config: { scopes: ['delete:guardian_enrollments'] }, schema: { tags, summary: 'Delete a Guardian enrollment', params: IdParams('The enrollment id (dev_…).', 200), response: NO_CONTENT_RESPONSES } },
      async (request, reply) => {
        await factors.deleteGuardianEnrollment(request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/users/:id/enrollments',
      { config: { scopes: ['read:users'] }, schema: { tags: userTags, summary: 'List a user\u2019s Guardian enrollments', params: UserParams, response: { 200: Type.Array(Enrollment), ...ERROR_RESPONSES } } },
      async (request) => factors.enrollments(request.params.id),
    );
    app.get(
      '/users/:id/authentication-methods',
      {
        config: { scopes: ['read:authentication_methods'] },
        schema: { tags: userTags, summary: 'List a user\u2019s authentication methods', params: UserParams, querystring: PageQuery, response: { 200: listResponseSchema('authenticators', Method), ...ERROR_RESPONSES } },
      },
      async (request) =>
        listHandler('authenticators', async (window) => {
          const all = await factors.methods(request.params.id);
          return { items: all.slice(window.offset, window.offset + window.limit), total: all.length };
        })(request),
    );
    app.post(
      '/users/:id/authentication-methods',
      {
        config: { scopes: ['create:authentication_methods'] },
        schema: { tags: userTags, summary: 'Create an authentication method for a user (confirmed at once)', params: UserParams, body: CreateMethodBody, response: { 201: Method, ...ERROR_RESPONSES } },
      },
      async (request, reply) => reply.code(201).send(await factors.createMethod(request.params.id, request.body)),
    );
    app.put(
      '/users/:id/authentication-methods',
      {
        config: { scopes: ['update:authentication_methods'] },
        schema: { tags: userTags, summary: 'Replace all of a user\u2019s authentication methods', params: UserParams, body: ReplaceMethodsBody, response: { 200: Type.Array(Method), ...ERROR_RESPONSES } },
      },
      async (request) => factors.replaceMethods(request.params.id, request.body),
    );
    app.delete(
      '/users/:id/authentication-methods',
      { config: { scopes: ['delete:authentication_methods'] }, schema: { tags: userTags, summary: 'Delete all of a user\u2019s authentication methods', params: UserParams, response: NO_CONTENT_RESPONSES } },
      async (request, reply) => {
        await factors.deleteAllMethods(request.params.id);
        return reply.code(204).send(null);
      },
    );
    app.get(
      '/users/:id/authentication-methods/:method_id',
      { config: { scopes: ['read:authentication_methods'] }, schema: { tags: userTags, summary: 'Get an authentication method of a user', params: MethodParams, response: { 200: Method, ...ERROR_RESPONSES } } },
      async (request) => factors.method(request.params.id, request.params.method_id),
    );
    app.patch(
      '/users/:id/authentication-methods/:method_id',
      {
        config: { scopes: ['update:authentication_methods'] },
        schema: { tags: userTags, summary: 'Rename an authentication method, or change how a phone gets its codes', params: MethodParams, body: UpdateMethodBody, response: { 200: Method, ...ERROR_RESPONSES } },
      },
      async (request) => factors.updateMethod(request.params.id, request.params.method_id, request.body),
    );
    app.delete(
      '/users/:id/authentication-methods/:method_id',
      { config: { scopes: ['delete:authentication_methods'] }, schema: { tags: userTags, summary: 'Delete an authentication method of a user', params: MethodParams, response: NO_CONTENT_RESPONSES } },
      async (request, reply) => {
        await factors.deleteMethod(request.params.id, request.params.method_id);
        return reply.code(204).send(null);
      },
    );
    app.post(
      '/users/:id/multifactor/actions/invalidate-remember-browser',
      { config: { scopes: ['update:users'] }, schema: { tags: userTags, summary: 'Ask for a second factor again on browsers the user had remembered', params: UserParams, response: NO_CONTENT_RESPONSES } },
      async (request, reply) => {
        await factors.invalidateRememberBrowser(request.params.id);
        return reply.code(204).send(null);
      },
    );
    app.post(
      '/users/:id/recovery-code-regeneration',
      {
        config: { scopes: ['update:users'] },
        schema: { tags: userTags, summary: 'Give the user a new recovery code (answered once; the old one stops working)', params: UserParams, response: { 200: Type.Object({ recovery_code: Type.String() }), ...ERROR_RESPONSES } },
      },
      async (request) => factors.regenerateRecoveryCode(request.params.id),
    );
  };
}
