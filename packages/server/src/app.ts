import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyHttpsOptions, type FastifyInstance } from 'fastify';
import type { Server } from 'node:https';
import { buildValidator } from './http/validation.js';
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
    schemaController: { compilersFactory: { buildValidator } },
  };
  const app = (
    options.https ? Fastify({ ...base, https: { ...options.https, ...timeouts } } as FastifyHttpsOptions<Server>) : Fastify(base)
  ).withTypeProvider<TypeBoxTypeProvider>() as unknown as FastifyInstance;
  limitJsonDepth(app);
  // On the root instance, before any route: every answer is counted, refusals and 404s included.
  requestMetrics(app, registry.metrics);
  closeConnectionsOnShutdown(app);

  await app.register(swagger, openapiOptions(registry.issuer));
  await app.register(formbody);
  await app.register(cookie);

  await app.register(async (surface) => {
    oauthSurface(surface);
    authRateLimit(surface, registry);
    cors(surface, { config: registry.oauthConfig, ownOrigin: new URL(registry.issuer).origin, paths: AUTHENTICATION_CORS_PATHS });
    await surface.register(wellKnownRoutes(registry));
    await surface.register(tokenRoutes(registry));
    await surface.register(mfaRoutes(registry));
    await surface.register(userinfoRoutes(registry));
    await surface.register(revokeRoutes(registry));
    await surface.register(dbConnectionsRoutes(registry));
    await surface.register(crossOriginRoutes(registry));
    await surface.register(passwordlessRoutes(registry));
    await surface.register(unblockRoutes(registry));
    if (!registry.config.production) await surface.register(devOutboxRoutes(registry));
    await surface.register(authorizeRoutes(registry));
    await surface.register(upstreamCallbackRoutes(registry));
    await surface.register(samlIdpRoutes(registry));
    await surface.register(logoutRoutes(registry));
    await surface.register(loginScreenRoutes(registry));
    await surface.register(consentScreenRoutes(registry));
    await surface.register(mfaScreenRoutes(registry));
    await surface.register(webauthnScreenRoutes(registry));
    await surface.register(continueRoutes(registry));
    await surface.register(organizationScreenRoutes(registry));
    await surface.register(passwordlessScreenRoutes(registry));
    await surface.register(signupScreenRoutes(registry));
    await surface.register(passkeyScreenRoutes(registry));
    await surface.register(resetPasswordRoutes(registry));
    await surface.register(emailVerificationRoutes(registry));
  });

  const bundle = loadLibraryBundle();
  await app.register(libraryRoutes(registry, bundle));
  if (registry.config.console) await app.register(consoleRoutes(registry, loadConsoleBundle()));
  await app.register(faviconRoutes());
  await app.register(healthRoutes(registry.readiness));
  if (registry.config.demo && bundle) await app.register(demoRoutes(registry, bundle));
  await app.register(
    async (surface) => {
      // Before the surface's own hooks: a preflight carries no token and is answered here.
      cors(surface, { config: registry.oauthConfig, ownOrigin: new URL(registry.issuer).origin, paths: MANAGEMENT_CORS_PATHS });
      managementSurface(surface, registry);
      await surface.register(managementRoutes(registry));
      surface.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: '/api/v2' },
  );

  return app;
}
