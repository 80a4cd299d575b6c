import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from '../../registry.js';
import { clientsService, type ClientData } from '../../services/clients.js';
import { MAX_REFRESH_TOKEN_LIFETIME, type RefreshTokenSettings } from '../../services/refresh-token-settings.js';
import {
  CheckpointQuery,
  ERROR_RESPONSES,
  FieldsQuery,
  commaList,
  IdParams,
  NO_CONTENT_RESPONSES,
  PaginationQuery,
  listResponseSchema,
  nullable,
} from './schemas.js';
import { ManagementError } from './errors.js';
import { deleteHandler, listHandler } from './resource-handlers.js';

const Urls = (description: string) => Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 100, description });

const GRANT_TYPES = [
  'authorization_code',
  'implicit',
  'refresh_token',
  'client_credentials',
  'password',
  'http://auth0.com/oauth/grant-type/password-realm',
  'http://auth0.com/oauth/grant-type/passwordless/otp',
  'http://auth0.com/oauth/grant-type/mfa-otp',
  'http://auth0.com/oauth/grant-type/mfa-oob',
  'http://auth0.com/oauth/grant-type/mfa-recovery-code',
  'urn:ietf:params:oauth:grant-type:device_code',
];

/** The platform's limits on client_metadata: at most 10 keys of at most 255 characters, values likewise. */
function metadataOf<T extends TSchema>(value: T, description: string) {
  return Type.Record(Type.String(), value, { maxProperties: 10, propertyNames: { maxLength: 255 }, description });
}

const CredentialRefs = (description: string) =>
  Type.Object(
    { credentials: Type.Array(Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }), { maxItems: 20, description }) },
    { additionalProperties: false },
  );

const refreshTokenFields = {
  leeway: Type.Integer({ minimum: 0, maximum: MAX_REFRESH_TOKEN_LIFETIME, description: 'Seconds during which the token just rotated away may still be exchanged without counting as reuse (default 0).' }),
  token_lifetime: Type.Integer({ minimum: 1, maximum: MAX_REFRESH_TOKEN_LIFETIME, description: 'Absolute lifetime of a refresh-token chain, in seconds.' }),
  infinite_token_lifetime: Type.Boolean({ description: 'No absolute lifetime (takes precedence over token_lifetime).' }),
  idle_token_lifetime: Type.Integer({ minimum: 1, maximum: MAX_REFRESH_TOKEN_LIFETIME, description: 'Seconds of inactivity after which refresh tokens stop working.' }),
  infinite_idle_token_lifetime: Type.Boolean({ description: 'No inactivity lifetime (takes precedence over idle_token_lifetime).' }),
};
const RotationType = Type.Unsafe<RefreshTokenSettings['rotation_type']>({ type: 'string', enum: ['rotating', 'non-rotating'], description: 'rotating: each use answers a new token, and an old one presented again revokes the grant; non-rotating: one token, used again.' });
const ExpirationType = Type.Unsafe<RefreshTokenSettings['expiration_type']>({ type: 'string', enum: ['expiring', 'non-expiring'], description: 'expiring: the lifetimes apply; non-expiring: refresh tokens never expire (not with rotation).' });
/** As the platform's: rotation and expiration named, the lifetimes optional (a PATCH keeps the ones it leaves out). */
const RefreshTokenBody = Type.Object(
  {
    rotation_type: RotationType,
    expiration_type: ExpirationType,
    leeway: Type.Optional(refreshTokenFields.leeway),
    token_lifetime: Type.Optional(refreshTokenFields.token_lifetime),
    infinite_token_lifetime: Type.Optional(refreshTokenFields.infinite_token_lifetime),
    idle_token_lifetime: Type.Optional(refreshTokenFields.idle_token_lifetime),
    infinite_idle_token_lifetime: Type.Optional(refreshTokenFields.infinite_idle_token_lifetime),
  },
  { additionalProperties: false, description: 'Refresh-token rotation and expiration; new chains follow it, chains already issued keep theirs.' },
);
const RefreshToken = Type.Object({ rotation_type: RotationType, expiration_type: ExpirationType, ...refreshTokenFields }, { additionalProperties: false });

/** Fields a caller may set, with the platform's names. */
const writable = {
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^<>]+$', description: 'Name of the application (no < or >).' }),
  description: Type.Optional(Type.String({ maxLength: 140, description: 'Free-text description (at most 140 characters).' })),
  logo_uri: Type.Optional(Type.String({ maxLength: 2048, description: 'URL of the logo.' })),
  app_type: Type.Optional(Type.Unsafe<ClientData['app_type']>({ type: 'string', enum: ['spa', 'native', 'regular_web', 'non_interactive'], description: 'Type of application: spa, native, regular_web or non_interactive.' })),
  callbacks: Type.Optional(Urls('Allowed callback URLs (exact match).')),
  allowed_logout_urls: Type.Optional(Urls('URLs allowed as returnTo after logout.')),
  web_origins: Type.Optional(Urls('Origins allowed for web message and cross-origin authentication.')),
  allowed_origins: Type.Optional(Urls('Origins allowed to make CORS requests.')),
  grant_types: Type.Optional(Type.Array(Type.Unsafe<string>({ type: 'string', enum: GRANT_TYPES }), { maxItems: 20, uniqueItems: true, description: `Grant types the client may use: ${GRANT_TYPES.join(', ')}.` })),
  token_endpoint_auth_method: Type.Optional(
    Type.Unsafe<ClientData['token_endpoint_auth_method']>({ type: 'string', enum: ['none', 'client_secret_post', 'client_secret_basic'], description: 'How the client authenticates at the token endpoint: none (public), client_secret_post or client_secret_basic.' }),
  ),
  jwt_configuration: Type.Optional(
    Type.Object(
      {
        alg: Type.Optional(Type.Unsafe<'RS256' | 'HS256'>({ type: 'string', enum: ['RS256', 'HS256'], description: 'ID token signing algorithm: RS256 (default) or HS256.' })),
        lifetime_in_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 2592000, description: 'ID token lifetime in seconds.' })),
      },
      { additionalProperties: false, description: 'ID token settings.' },
    ),
  ),
  client_authentication_methods: Type.Optional(
    nullable(
      Type.Object(
        {
          private_key_jwt: Type.Optional(CredentialRefs('Client assertions signed by these public_key credentials.')),
          tls_client_auth: Type.Optional(CredentialRefs('CA-signed client certificates with these cert_subject_dn credentials.')),
          self_signed_tls_client_auth: Type.Optional(CredentialRefs('Self-signed client certificates registered as these x509_cert credentials.')),
        },
        { additionalProperties: false },
      ),
      'Key- and certificate-based authentication; when any is set, the client authenticates only by those methods.',
    ),
  ),
  cross_origin_authentication: Type.Optional(Type.Boolean({ description: 'Whether cross-origin login (/co/authenticate) is allowed.' })),
  cross_origin_loc: Type.Optional(
    Type.String({
      maxLength: 2048,
      pattern: '^https?://[^\\s#]+$',
      description: "URL of the application's cross-origin verification page (the library's crossOriginVerification()), used when third-party cookies are blocked.",
    }),
  ),
  is_first_party: Type.Optional(Type.Boolean({ description: 'Whether the application is first party.' })),
  organization_usage: Type.Optional(
    Type.Unsafe<'deny' | 'allow' | 'require'>({ type: 'string', enum: ['deny', 'allow', 'require'], description: 'Whether users log in to an organization: deny (default), allow, or require.' }),
  ),
  organization_require_behavior: Type.Optional(
    Type.Unsafe<'no_prompt' | 'pre_login_prompt' | 'post_login_prompt'>({
      type: 'string',
      enum: ['no_prompt', 'pre_login_prompt', 'post_login_prompt'],
      description: 'With organization_usage require and no organization given: refuse (no_prompt, default), ask for its name before login, or choose among memberships after.',
    }),
  ),
  refresh_token: Type.Optional(nullable(RefreshTokenBody, 'Refresh-token rotation and expiration; null returns to the default (rotating, 30 days idle).')),
  initiate_login_uri: Type.Optional(Type.String({ maxLength: 2048, pattern: '^https://[^\\s#]+$', description: 'Where a login starts from outside the application (invitation links go there); https.' })),
  oidc_conformant: Type.Optional(Type.Boolean({ description: 'Whether the application follows strict OIDC conformance.' })),
  sso_disabled: Type.Optional(Type.Boolean({ description: 'Disable single sign-on.' })),
  client_metadata: Type.Optional(metadataOf(Type.String({ maxLength: 255 }), 'Up to 10 string key/value pairs.')),
  addons: Type.Optional(
    Type.Object(
      {
        samlp: Type.Optional(
          Type.Object(
            {
              audience: Type.Optional(Type.String({ maxLength: 1024, description: 'Audience of the assertions (default: the AuthnRequest issuer when it is one of the callbacks, else the ACS URL).' })),
              recipient: Type.Optional(Type.String({ maxLength: 2048, description: 'Recipient of the assertions (default: the ACS URL).' })),
              destination: Type.Optional(Type.String({ maxLength: 2048, description: 'Destination of the responses (default: the ACS URL).' })),
              callback: Type.Optional(Type.String({ maxLength: 2048, pattern: '^https?://', description: "The service provider's assertion consumer service URL (default: the first callback)." })),
              mappings: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 1024 }), { maxProperties: 50, description: 'Profile field -> SAML attribute name.' })),
              nameIdentifierFormat: Type.Optional(Type.String({ maxLength: 255, description: 'NameID format (default unspecified).' })),
              nameIdentifierProbes: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 10, description: 'Profile fields tried in order for the NameID (default user_id).' })),
              lifetimeInSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 86400, description: 'Validity of the assertion (default 3600).' })),
              signResponse: Type.Optional(Type.Boolean({ description: 'Sign the whole response as well as the assertion.' })),
              logout: Type.Optional(Type.Object({ callback: Type.Optional(Type.String({ maxLength: 2048, pattern: '^https?://' })), slo_enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
              signingCert: Type.Optional(Type.String({ maxLength: 16384, description: 'The service provider’s certificate (PEM or base64): single logout then requires LogoutRequests signed by it.' })),
            },
            { additionalProperties: false, description: 'SAML2 Web App: Latchkey signs users in to this application as its SAML identity provider.' },
          ),
        ),
      },
      { additionalProperties: false, description: 'Add-ons of the application.' },
    ),
  ),
};

const CreateBody = Type.Object(writable, { additionalProperties: false });
const { name: _name, client_metadata: _metadata, ...optional } = writable;
const UpdateBody = Type.Object(
  {
    ...optional,
    name: Type.Optional(writable.name),
    client_metadata: Type.Optional(metadataOf(nullable(Type.String({ maxLength: 255 })), 'Merged into the current client_metadata; a null value removes its key.')),
  },
  { additionalProperties: false, minProperties: 1 },
);

const Client = Type.Object(
  {
    client_id: Type.String(),
    tenant: Type.String(),
    global: Type.Boolean(),
    client_secret: Type.Optional(Type.String({ description: 'Only in the answer of a create or rotate-secret.' })),
    ...optional,
    name: Type.String(),
    client_metadata: Type.Record(Type.String(), Type.String()),
    // Every stored client has one (the default when it never set it); the global client holds no settings.
    refresh_token: Type.Optional(RefreshToken),
  },
  { additionalProperties: false },
);

const ClientIdParams = IdParams('Client id.');

/**
 * The platform's tenants each have one global client, "All Applications", which carries the classic login page;
 * tools that move a tenant look it up with `is_global=true` and stop when there is none. Latchkey's hosted pages
 * are not set on a client, so this one has nothing beyond its name: it is listed for that filter only and is not
 * stored (reading it by id answers that the client does not exist; changing it, which is how the platform sets its
 * classic login page, is refused naming that).
 */
const allApplications = (tenant: string) => ({ client_id: `${tenant}-global`, tenant, global: true, name: 'All Applications', client_metadata: {} });
const ListQuery = Type.Object(
  {
    ...PaginationQuery,
    ...CheckpointQuery,
    ...FieldsQuery,
    is_global: Type.Optional(Type.Boolean({ description: 'Only the global client (true: "All Applications", which holds no settings here) or only the others (false).' })),
    is_first_party: Type.Optional(Type.Boolean({ description: 'Only first-party (true) or third-party (false) clients.' })),
    app_type: Type.Optional(Type.String({ maxLength: 256, description: 'Only clients of these application types (comma-separated).' })),
    client_ids: Type.Optional(Type.String({ maxLength: 8192, description: 'Only these clients (comma-separated ids).' })),
    // Organizations do not exist here: a query about them is accepted and matches no client.
    q: Type.Optional(Type.String({ maxLength: 1024, description: 'Lucene query on client grants (client_grant.organization_id, client_grant.allow_any_organization); accepted, matches no client.' })),
  },
  { additionalProperties: false },
);
const ReadQuery = Type.Object(FieldsQuery, { additionalProperties: false });

export function clientsRoutes(registry: Registry): FastifyPluginAsyncTypebox {
  return async (app) => {
    const service = clientsService(registry);
    const tags = ['clients'];
    app.get(
      '/clients',
      { config: { scopes: ['read:clients'] }, schema: { tags, summary: 'List clients', querystring: ListQuery, response: { 200: listResponseSchema('clients', Client, { checkpoint: true }), ...ERROR_RESPONSES } } },
      listHandler('clients', async (window, { is_global: isGlobal, is_first_party: isFirstParty, app_type: appType, client_ids: clientIds, q }) =>
        isGlobal === true ? { items: [allApplications(registry.tenantId)], total: 1 } : service.list(window, {
          ...(isGlobal !== undefined ? { global: isGlobal } : {}),
          ...(isFirstParty !== undefined ? { is_first_party: isFirstParty } : {}),
          ...(commaList(appType) ? { app_type: commaList(appType) } : {}),
          ...(commaList(clientIds) ? { client_ids: commaList(clientIds) } : {}),
          ...(q !== undefined && q.trim() !== '' ? { none: true } : {}),
        }),
      ),
    );
    app.post(
      '/clients',
      {
        config: { scopes: ['create:clients'] },
        schema: { tags, summary: 'Create a client (a confidential one gets its secret in this answer only)', body: CreateBody, response: { 201: Client, ...ERROR_RESPONSES } },
      },
      async (request, reply) => reply.code(201).send(await service.create(request.body)),
    );
    app.get(
      '/clients/:id',
      { config: { scopes: ['read:clients'] }, schema: { tags, summary: 'Get a client', params: ClientIdParams, querystring: ReadQuery, response: { 200: Client, ...ERROR_RESPONSES } } },
      async (request) => service.get(request.params.id),
    );
    app.patch(
      '/clients/:id',
      {
        config: { scopes: ['update:clients'] },
        schema: { tags, summary: 'Update a client', params: ClientIdParams, body: UpdateBody, response: { 200: Client, ...ERROR_RESPONSES } },
        // Before the body's schema, which would only name an unknown property of the global client.
        preValidation: async (request) => {
          if ((request.params as { id?: string }).id === allApplications(registry.tenantId).client_id) {
            throw new ManagementError(400, 'Latchkey has no classic login page (pages): customise the hosted pages with /api/v2/prompts and /api/v2/branding.', 'unsupported_feature');
          }
        },
      },
      async (request) => service.update(request.params.id, request.body),
    );
    app.delete(
      '/clients/:id',
      { config: { scopes: ['delete:clients'] }, schema: { tags, summary: 'Delete a client and its grants', params: ClientIdParams, response: NO_CONTENT_RESPONSES } },
      deleteHandler(({ id }) => service.remove(id)),
    );
    app.post(
      '/clients/:id/rotate-secret',
      { config: { scopes: ['update:client_keys'] }, schema: { tags, summary: 'Rotate the client secret (shown in this answer only)', params: ClientIdParams, response: { 200: Client, ...ERROR_RESPONSES } } },
      async (request) => service.rotateSecret(request.params.id),
    );
  };
}
