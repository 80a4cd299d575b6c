import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyHttpsOptions, type FastifyInstance } from 'fastify';
import type { Server } from 'node:https';
import { buildValidator } from './http/validation.js';
import { buildSerializer } from './http/serialization.js';
import { managementRoutes } from './http/management/index.js';
import { managementSurface } from './http/management/surface.js';
import { loginScreenRoutes } from './http/login/login-screens.js';
import { consentScreenRoutes } from './http/login/consent-screen.js';
import { mfaScreenRoutes } from './http/login/mfa-screens.js';
import { webauthnScreenRoutes } from './http/login/mfa-webauthn-screens.js';
import { continueRoutes } from './http/login/continue.js';
import { organizationScreenRoutes } from './http/login/organization-screens.js';
import { passwordlessScreenRoutes } from './http/login/passwordless-screens.js';
import { resetPasswordRoutes } from './http/login/reset-password.js';
import { emailVerificationRoutes } from './http/login/email-verification.js';
import { signupScreenRoutes } from './http/login/signup-screens.js';
import { passkeyScreenRoutes } from './http/login/passkey-screens.js';
import { authorizeRoutes } from './http/oauth/authorize.js';
import { upstreamCallbackRoutes } from './http/oauth/upstream-callback.js';
import { samlIdpRoutes } from './http/oauth/saml-idp.js';
import { logoutRoutes } from './http/oauth/logout.js';
import { authRateLimit, oauthSurface } from './http/oauth/surface.js';
import { dbConnectionsRoutes } from './http/oauth/dbconnections.js';
import { crossOriginRoutes } from './http/oauth/cross-origin.js';
import { passwordlessRoutes } from './http/oauth/passwordless.js';
import { unblockRoutes } from './http/login/unblock.js';
import { devOutboxRoutes } from './http/dev-outbox.js';
import { revokeRoutes } from './http/oauth/revoke.js';
import { userinfoRoutes } from './http/oauth/userinfo.js';
import { AUTHENTICATION_CORS_PATHS, cors, MANAGEMENT_CORS_PATHS } from './http/plugins/cors.js';
import { demoRoutes } from './http/demo.js';
import { libraryRoutes, loadLibraryBundle } from './http/library.js';
import { faviconRoutes } from './http/favicon.js';
import { consoleRoutes, loadConsoleBundle } from './http/console.js';
import { tokenRoutes } from './http/oauth/token.js';
import { mfaRoutes } from './http/oauth/mfa.js';
import { wellKnownRoutes } from './http/oauth/well-known.js';
import { openapiOptions } from './http/openapi.js';
import { BODY_LIMIT_BYTES, limitJsonDepth, serverTimeouts, trustedProxies } from './http/plugins/server-options.js';
import { requestLogController } from './http/plugins/request-log.js';
import { requestMetrics } from './http/plugins/request-metrics.js';
import { closeConnectionsOnShutdown } from './http/plugins/draining.js';
import { healthRoutes } from './http/health.js';
import type { Registry } from './registry.js';
import { named } from './http/plugin-name.js';

export interface AppOptions {
  /** PEM certificate and key: serve HTTPS. */
  https?: { cert: string | Buffer; key: string | Buffer };
}

/** Builds the HTTP application. It never listens by itself: main.ts does, tests inject or listen on port 0. */
export async function buildApp(registry: Registry, options: AppOptions = {}): Promise<FastifyInstance> {
  const timeouts = serverTimeouts(registry.config);
  const base = {
    loggerInstance: registry.log,
    logController: requestLogController(registry.config.logLevel),
    trustProxy: trustedProxies(registry.config.trustProxy),
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: timeouts.requestTimeout,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    http: timeouts,
    schemaController: { compilersFactory: { buildValidator, buildSerializer } },
  };
  const app = (
    options.https ? Fastify({ ...base, https: { ...options.https, ...timeouts } } as FastifyHttpsOptions<Server>) : Fastify(base)
  ).withTypeProvider<TypeBoxTypeProvider>() as unknown as FastifyInstance;
  limitJsonDepth(app);
  // On the root instance, before any route: every answer is counted, refusals and 404s included.
  requestMetrics(app, registry.metrics);
  closeConnectionsOnShutdown(app);

  await app.register(named(swagger), openapiOptions(registry.issuer));
  await app.register(named(formbody));
  await app.register(named(cookie));

  await app.register(
    named(async function authenticationSurface(surface: FastifyInstance) {
    oauthSurface(surface);
    authRateLimit(surface, registry);
    cors(surface, { config: registry.oauthConfig, ownOrigin: new URL(registry.issuer).origin, paths: AUTHENTICATION_CORS_PATHS });
    await surface.register(named(wellKnownRoutes(registry)));
    await surface.register(named(tokenRoutes(registry)));
    await surface.register(named(mfaRoutes(registry)));
    await surface.register(named(userinfoRoutes(registry)));
    await surface.register(named(revokeRoutes(registry)));
    await surface.register(named(dbConnectionsRoutes(registry)));
    await surface.register(named(crossOriginRoutes(registry)));
    await surface.register(named(passwordlessRoutes(registry)));
    await surface.register(named(unblockRoutes(registry)));
    if (!registry.config.production) await surface.register(named(devOutboxRoutes(registry)));
    await surface.register(named(authorizeRoutes(registry)));
    await surface.register(named(upstreamCallbackRoutes(registry)));
    await surface.register(named(samlIdpRoutes(registry)));
    await surface.register(named(logoutRoutes(registry)));
    await surface.register(named(loginScreenRoutes(registry)));
    await surface.register(named(consentScreenRoutes(registry)));
    await surface.register(named(mfaScreenRoutes(registry)));
    await surface.register(named(webauthnScreenRoutes(registry)));
    await surface.register(named(continueRoutes(registry)));
    await surface.register(named(organizationScreenRoutes(registry)));
    await surface.register(named(passwordlessScreenRoutes(registry)));
    await surface.register(named(signupScreenRoutes(registry)));
    await surface.register(named(passkeyScreenRoutes(registry)));
    await surface.register(named(resetPasswordRoutes(registry)));
    await surface.register(named(emailVerificationRoutes(registry)));
  }),
  );

  const bundle = loadLibraryBundle();
  await app.register(named(libraryRoutes(registry, bundle)));
  if (registry.config.console) await app.register(named(consoleRoutes(registry, loadConsoleBundle())));
  await app.register(named(faviconRoutes()));
  await app.register(named(healthRoutes(registry.readiness)));
  if (registry.config.demo && bundle) await app.register(named(demoRoutes(registry, bundle)));
  await app.register(
    named(async function managementApiSurface(surface: FastifyInstance) {
      // Before the surface's own hooks: a preflight carries no token and is answered here.
      cors(surface, { config: registry.oauthConfig, ownOrigin: new URL(registry.issuer).origin, paths: MANAGEMENT_CORS_PATHS });
      managementSurface(surface, registry);
      await surface.register(named(managementRoutes(registry)));
      surface.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    }),
    { prefix: '/api/v2' },
  );

  return app;
}
