import type { Logger } from 'pino';
import { createLogger } from './log.js';
import { artifactSweeper } from './services/artifact-sweeper.js';
import type { Config } from './config/load.js';
import { deploymentSecret, developmentSecret } from './crypto/deployment-secret.js';
import { opaqueTokenCodec, type OpaqueTokenCodec } from './oauth/opaque-access-token.js';
import { connectionSecrets, type ConnectionSecrets } from './services/connection-secrets.js';
import { loginTickets, type LoginTickets } from './oauth/login-tickets.js';
import { signInPipeline } from './oauth/sign-in-pipeline.js';
import { signInEvents } from './oauth/sign-in-events.js';
import { consents, type Consents } from './oauth/consent.js';
import { organizationInvitations, type OrganizationInvitations } from './services/organization-invitations.js';
import { organizationLogin, type OrganizationLogin } from './oauth/organization-login.js';
import { eventNames } from './services/events/names.js';
import { disabledEventRecorder, eventRecorder, type EventRecorder, type EventRecorderDeps } from './services/events/recorder.js';
import { logStreamDelivery, type LogStreamDeliveryOptions } from './services/log-streams/delivery.js';
import { logStreamSecrets } from './services/log-streams/stream-secrets.js';
import { logStreamsService, type LogStreams } from './services/log-streams/streams.js';
import { jobsService, type JobsService } from './services/jobs/jobs.js';
import { jobRunner, type JobRunnerOptions } from './services/jobs/runner.js';
import { exportDownloads, type ExportDownloads } from './services/jobs/export-download.js';
import { signingCertificates } from './keys/certificate.js';
import { samlIdentityProvider, type SamlIdentityProvider } from './oauth/saml/identity-provider.js';
import { samlServiceProvider } from './oauth/saml/service-provider.js';
import { upstreamClient } from './oauth/upstream/client.js';
import { upstreamLogin, type UpstreamLogin } from './oauth/upstream/login.js';
import { federatedUsers } from './services/federated-users.js';
import { signingKeys, type SigningKeys } from './keys/signing-keys.js';
import type { ClientAuthDeps } from './oauth/client-auth.js';
import { oauthConfigCache, type OAuthConfig } from './services/config-cache.js';
import { hostedPrompts, type Prompts } from './services/prompts/hosted.js';
import { grantRevocations, type GrantRevocations } from './oauth/grant-revocations.js';
import type { UserGrantServices } from './oauth/grants/grant.js';
import { tokenIssuer, type TokenIssuer } from './oauth/tokens.js';
import { userTokens } from './oauth/user-tokens.js';
import { loginTransactions, type LoginTransactions } from './oauth/authorize/transaction.js';
import { databaseLogin } from './services/database-login.js';
import { sessionsService, type Sessions } from './services/sessions.js';
import { sessionLifetimesOf } from './services/tenant-settings.js';
import { deliveryNotifier, type Notifier } from './services/notifier.js';
import { passwordless } from './services/passwordless.js';
import { attackProtectionSettings, type AttackProtectionSettings } from './services/attack-protection-settings.js';
import { guardianSettings, type GuardianSettingsService } from './services/mfa/guardian-settings.js';
import { authenticators, type Authenticators } from './services/mfa/authenticators.js';
import { rememberedBrowsers, type RememberedBrowsers } from './services/mfa/remembered-browsers.js';
import { relyingPartyOf, webauthn, type WebAuthn } from './services/mfa/webauthn.js';
import { mfaTokens } from './oauth/mfa/mfa-tokens.js';
import { mfaApi } from './oauth/mfa/mfa-api.js';
import { mfaApiResourceServer } from './oauth/mfa/mfa-audience.js';
import { mfaReasons, multiFactorRequirement } from './oauth/mfa/requirement.js';
import { progressivePasskeyEnrollment } from './oauth/passkey-enrollment.js';
import { breachedPasswords, type BreachedPasswords } from './services/breached-passwords.js';
import { loginProtection, type LoginProtection } from './services/login-protection.js';
import type { Delivery } from './services/delivery/channels.js';
import { localOutbox, type LocalOutbox } from './services/delivery/outbox.js';
import { createDelivery } from './services/delivery/transports.js';
import { passwordResets, type PasswordResets } from './services/password-reset.js';
import { emailVerifications, type EmailVerifications } from './services/email-verification.js';
import { ensureDemoApplication } from './services/demo-application.js';
import { bootstrap, type BootstrapResult } from './services/bootstrap.js';
import { createRateLimiter, type RateLimiter } from './services/rate-limiter.js';
import { createMetrics, type Metrics } from './services/metrics.js';
import { passwordHashingLoad } from './services/passwords.js';
import { readinessProbe, type ReadinessReport } from './services/readiness.js';
import { countedDatabaseLogin, countedLoginProtection, countedPasswordless, UNKNOWN_CONNECTION } from './services/sign-in-metrics.js';
import { connectRedis } from './services/redis.js';
import { deploymentChangeBus } from './services/change-bus/index.js';
import { managementApiIdentifier } from './services/resource-servers.js';
import { bootstrapAdministrator, CONSOLE_CLIENT_ID, ensureConsole } from './services/console-setup.js';
import { actionBuilder } from './services/actions/action-build.js';
import { actionSecrets } from './services/actions/action-secrets.js';
import { actionsService, type ActionsService } from './services/actions/actions-service.js';
import type { BoundActions } from './services/actions/bound-actions.js';
import { createActionsRuntime, type ActionsRuntime } from './services/actions/runtime.js';
import { storedBoundActions } from './services/actions/stored-bound-actions.js';
import { openStorage } from './storage/open.js';
import { actionTriggers as createActionTriggers, type ActionTriggers } from './oauth/action-triggers.js';
import { withPhoneMessageActions } from './services/actions/phone-message-actions.js';
import { ActionCacheStore } from './services/actions/action-cache.js';
import { createStorage, type Storage } from './storage/storage.js';

/** Everything the HTTP layer and the services need, built once. Consumers take the narrow parts they use. */
export interface Registry {
  config: Config;
  log: Logger;
  storage: Storage;
  tenantId: string;
  /** The public base URL, no trailing slash. */
  issuer: string;
  /** The `iss` claim: the issuer with a trailing slash. */
  issuerClaim: string;
  managementAudience: string;
  keys: SigningKeys;
  tokens: TokenIssuer;
  /** Clients, APIs and client grants as the OAuth endpoints read them (cached briefly). */
  oauthConfig: OAuthConfig;
  /** The prompt settings and custom texts as the hosted pages read them (cached; other nodes' changes clear it). */
  prompts: Prompts;
  /** Services of the user grants and of `/authorize`. */
  userGrants: UserGrantServices;
  sessions: Sessions;
  /** Users' consent to applications: when to ask, and what was granted. */
  consents: Consents;
  /** Invitations to organizations: created by the Management API, redeemed by a login. */
  invitations: OrganizationInvitations;
  /** Logins to organizations: which connections, who may join, and the organization prompts. */
  organizations: OrganizationLogin;
  /** The triggers of the tenant's Actions: the runner of bound actions and each trigger's own reading of them. */
  actionTriggers: ActionTriggers;
  transactions: LoginTransactions;
  /** Cross-origin login: tickets from /co/authenticate that /authorize redeems. */
  loginTickets: LoginTickets;
  /** Logins through upstream OpenID Connect and OAuth 2.0 providers (`/authorize?connection=`, `/login/callback`). */
  upstream: UpstreamLogin;
  /** Latchkey as a SAML identity provider (the SAML2 Web App add-on of applications). */
  samlIdp: SamlIdentityProvider;
  passwordResets: PasswordResets;
  emailVerifications: EmailVerifications;
  notifier: Notifier;
  delivery: Delivery;
  /** Where undelivered (unconfigured) messages go; `/dev/outbox` lists it outside production. */
  outbox: LocalOutbox;
  /** Key of the stored hashes of secret handles (sessions, codes, refresh tokens, transactions). */
  handleKey: Buffer;
  /** Seals and opens the opaque access tokens of `/userinfo`. */
  opaqueTokens: OpaqueTokenCodec;
  /** Whether the grant an access token came from was revoked (the endpoints that accept our tokens ask). */
  grantRevocations: GrantRevocations;
  /** Seals connections' upstream credentials at rest. */
  connectionSecrets: ConnectionSecrets;
  clientSecretKey: Buffer;
  /** What the token and revocation endpoints authenticate clients with. */
  clientAuth: ClientAuthDeps;
  managementLimiter: RateLimiter;
  attackProtection: AttackProtectionSettings;
  /** Multi-factor authentication: the tenant's factors and policy, users' authenticators. */
  mfa: { settings: GuardianSettingsService; authenticators: Authenticators; rememberedBrowsers: RememberedBrowsers; webauthn: WebAuthn };
  loginProtection: LoginProtection;
  breached: BreachedPasswords;
  /** The Authentication API's limiter of one endpoint (route path), counting per client IP address. */
  authLimiter(path: string): RateLimiter;
  bootstrapResult: BootstrapResult;
  /** Where this start wrote the bootstrap administrator's credentials, if it created them. */
  consoleCredentialsFile: string | undefined;
  /** The tenant log: `record` buffers an event, a background writer stores the buffer in batches. */
  events: EventRecorder;
  /** The Management API's log streams (`/api/v2/log-streams`); a worker started with the registry delivers them. */
  logStreams: LogStreams;
  /** Management API jobs (`/api/v2/jobs`: users imports); a runner started with the registry runs them. */
  jobs: JobsService;
  /** Signs and checks the download links of finished users exports. */
  exportDownloads: ExportDownloads;
  /**
   * Tenant Actions: the Management API's service, what each trigger runs (`bound`, cached; `recordExecution`), and
   * the one runtime every run goes through (isolates per deployed version, disposed by `close`).
   */
  actions: { service: ActionsService; bound: BoundActions; runtime: ActionsRuntime };
  /** Prometheus metrics (services/metrics.ts): counters the code calls, gauges read on each scrape. */
  metrics: Metrics;
  /** Whether the database, and Redis when configured, answer now (`/health/ready`). */
  readiness(): Promise<ReadinessReport>;
  now: () => Date;
  /**
   * Releases what the registry opened, after the HTTP listener has closed and its requests have finished (main.ts),
   * in this order: stop the timers that write (the sweeper, log stream delivery) and dispose the Actions isolates;
   * stop hearing other nodes (the
   * change bus); flush what is buffered for the database (the tenant log's event buffer goes here, before the
   * database closes); then Redis, the delivery transports, and the database last, since every step before may still
   * write to it.
   */
  close(): Promise<void>;
}

export interface RegistryOptions {
  /** PostgreSQL schema to work in (tests isolate themselves this way). */
  schema?: string;
  logger?: Logger;
  now?: () => Date;
  /** Log stream delivery's timings and endpoints (tests shorten the suspension window and the polls). */
  logStreams?: LogStreamDeliveryOptions;
  /** The job runner's timings (tests shorten the poll and the lease, or start a node that runs no jobs). */
  jobs?: JobRunnerOptions;
  /** The tenant log's buffer (tests make it tiny and slow to drain, to see a full buffer drop and count events). */
  events?: Pick<EventRecorderDeps, 'capacity' | 'intervalMs'>;
}


export async function createRegistry(config: Config, options: RegistryOptions = {}): Promise<Registry> {
  const log = options.logger ?? createLogger(config.logLevel);
  const now = options.now ?? (() => new Date());
  const secret = deploymentSecret(config.secret ?? developmentSecret(config.dataDir));
  const storage = createStorage(
    await openStorage(config.database, {
      ...(options.schema !== undefined ? { schema: options.schema } : {}),
      onConnectionLost: (error) => log.warn({ reason: error.message }, 'database connection lost; the pool opens a new one when needed'),
    }),
  );
  const redis = config.redisUrl ? connectRedis(config.redisUrl, log) : undefined;
  // Process metrics (event-loop lag, memory, GC) keep samplers running: only when the metrics listener will read them.
  const metrics = createMetrics({ processMetrics: config.metrics !== undefined });
  const tenantId = config.tenant;
  const issuerClaim = `${config.issuer}/`;
  const clientSecretKey = secret.key('client-secret-hash');
  // Other nodes' writes reach this node's caches at once (a revoked key, a deleted client, a revoked grant).
  const changeBus = deploymentChangeBus({ database: config.database, storage, redis, tenantId, schema: options.schema, log });
  try {
    const keys = signingKeys({ storage, tenantId, sealingKey: secret.key('signing-key-seal'), now });
    // Before bootstrap writes anything: a node whose LATCHKEY_SECRET cannot open the stored keys must stop here,
    // not after it has re-hashed the admin client's secret with a key no other node shares.
    await keys.reload();
    const bootstrapResult = await bootstrap({
      storage,
      tenantId,
      issuer: config.issuer,
      clientSecretKey,
      dataDir: config.dataDir,
      adminCredentials:
        config.adminClientId && config.adminClientSecret ? { clientId: config.adminClientId, clientSecret: config.adminClientSecret } : undefined,
      now,
    });
    await keys.ensure();
    if (config.demo) await ensureDemoApplication({ storage, tenantId, issuer: config.issuer, now });
    // After the demo: both want the default database connection, and the console only adds itself to it.
    let consoleCredentialsFile: string | undefined;
    if (config.console) {
      const { roleId } = await ensureConsole({ storage, tenantId, issuer: config.issuer, now });
      consoleCredentialsFile = await bootstrapAdministrator({ storage, tenantId, issuer: config.issuer, dataDir: config.dataDir, now }, roleId);
    }
    const oauthConfig = oauthConfigCache({ storage, tenantId, ttlMs: config.configCacheSeconds * 1000, builtInApis: [mfaApiResourceServer(config.issuer)] });
    const sessionLifetimes = async () => sessionLifetimesOf((await oauthConfig.tenantDocument())?.settings);
    const events = config.tenantLog
      ? eventRecorder({
          storage,
          tenantId,
          hostname: new URL(config.issuer).hostname,
          retentionDays: config.logRetentionDays,
          names: eventNames({ storage, tenantId, config: oauthConfig }),
          now,
          log,
          ...options.events,
        })
      : disabledEventRecorder();
    const handleKey = secret.key('artifact-handle');
    const authLimiters = new Map<string, RateLimiter>();
    const attackProtection = attackProtectionSettings({ storage, tenantId, read: oauthConfig.tenantDocument });
    const mfa = {
      settings: guardianSettings({ storage, tenantId, read: oauthConfig.tenantDocument }),
      // TOTP secrets sealed, recovery codes hashed, each under its own key from the deployment secret.
      authenticators: authenticators({ storage, tenantId, sealingKey: secret.key('mfa-secret-seal'), codeKey: secret.key('mfa-code-hash'), events, now }),
      rememberedBrowsers: rememberedBrowsers({ storage, tenantId, key: secret.key('mfa-remember-browser'), now }),
      // The relying party is the issuer's host; its name the product's (the tenant's friendly name may change).
      webauthn: webauthn({ storage, tenantId, events, relyingParty: relyingPartyOf(config.issuer), now }),
    };
    const breached = breachedPasswords({ rangeUrl: config.breachedRangeUrl, onRangeError: (error) => log.warn({ err: error }, 'breached-password range API unavailable') });
    const outbox = localOutbox(config.dataDir, now);
    // One runtime for the process: the isolates of deployed versions are shared by every trigger and the tests.
    const actionsRuntime = createActionsRuntime({
      timeoutMs: config.actions.timeoutMs,
      memoryLimitMb: config.actions.memoryMb,
      egress: config.actions.egress,
      onCatastrophicError: (message) => log.fatal({ reason: message }, 'the Actions runtime lost control of an isolate; restart this node'),
    });
    const sealedActionSecrets = actionSecrets(secret.key('action-secret-seal'));
    const actions = {
      service: actionsService({ storage, tenantId, now, secrets: sealedActionSecrets, builder: actionBuilder({ modulesDir: config.actions.modulesDir }), runtime: actionsRuntime }),
      bound: storedBoundActions({ storage, tenantId, secrets: sealedActionSecrets, now, ttlMs: config.configCacheSeconds * 1000 }),
      runtime: actionsRuntime,
    };
    // The triggers read what is bound from the Actions service's state; one trigger's actions share its time limit.
    const actionTriggers = createActionTriggers({
      storage,
      tenantId,
      config: oauthConfig,
      events,
      now,
      bound: actions.bound,
      runtime: actionsRuntime,
      cache: new ActionCacheStore(),
      domain: new URL(config.issuer).hostname,
      timeoutMs: config.actions.timeoutMs,
      log,
    });
    // Text messages go through a bound send-phone-message action instead of the configured transport.
    const delivery = withPhoneMessageActions(createDelivery(config.delivery, outbox), { runner: actionTriggers.runner, tenantId, events });
    const notifier = deliveryNotifier(delivery, log);
    const resets = passwordResets({ storage, tenantId, issuer: config.issuer, handleKey, now });
    const protection = countedLoginProtection(loginProtection({ storage, tenantId, handleKey, settings: attackProtection, notifier, issuer: config.issuer, events, now }), metrics);
    const opaqueTokens = opaqueTokenCodec(secret.key('opaque-access-token'));
    const sealedConnectionSecrets = connectionSecrets(secret.key('connection-secret-seal'));
    const transactions = loginTransactions({ storage, tenantId, handleKey, now });
    const certificates = signingCertificates(keys, new URL(config.issuer).hostname);
    // Deletes expired artifacts every LATCHKEY_SWEEP_SECONDS until `close()`.
    const sweeper = artifactSweeper({ storage, intervalSeconds: config.sweepSeconds, now, log });
    sweeper.start();
    const signIn = signInPipeline({ storage, tenantId });
    const consent = consents({ storage, tenantId, config: oauthConfig, issuer: config.issuer, now });
    const invitations = organizationInvitations({ storage, tenantId, now, ticketKey: secret.key('organization-invitation'), notifier });
    const organizations = organizationLogin({ storage, tenantId, invitations, config: oauthConfig, now });
    signIn.use('multi-factor', multiFactorRequirement(mfa.settings));
    // After the second factor's check: a passkey is offered only to a user who passed it.
    signIn.use('multi-factor', progressivePasskeyEnrollment({ storage, tenantId, config: oauthConfig }));
    const mfaTokenStore = mfaTokens({ storage, tenantId, handleKey, now });
    const mfaGrants = {
      tokens: mfaTokenStore,
      api: mfaApi({
        storage,
        tenantId,
        settings: mfa.settings,
        authenticators: mfa.authenticators,
        tokens: mfaTokenStore,
        notifier,
        events,
        protection,
        handleKey,
        issuerName: new URL(config.issuer).hostname,
        clientName: async (clientId) => (await oauthConfig.client(clientId))?.data.name ?? '',
        now,
      }),
      authenticators: mfa.authenticators,
      protection,
      required: async (amr: readonly string[], acrValues: string | undefined) => (await mfaReasons(mfa.settings, amr, acrValues)).length > 0,
    };
    signIn.use('organization-membership', organizations.membershipStage);
    signIn.use('post-login-actions', actionTriggers.signInStage);
    signIn.use('consent', async (attempt) => {
      if (attempt.authorization && attempt.decisions) {
        const need = await consent.needed(attempt.authorization.request, attempt.authorization.client, attempt.userId);
        if (need) attempt.decisions.consent = need;
      }
    });
    signIn.use('event-recorded', signInEvents(events));
    // Completed sign-ins; a refresh renews a sign-in, and is counted among the tokens issued instead.
    signIn.use('event-recorded', async (attempt) => {
      if (attempt.path !== 'refresh-token-grant') metrics.signIns.inc({ result: 'success', connection: attempt.connection ?? UNKNOWN_CONNECTION });
    });
    metrics.addGauge<'state'>({
      name: 'latchkey_password_hashes',
      help: 'Password hashes (argon2id) running and waiting for a CPU slot.',
      labelNames: ['state'],
      collect: () => {
        const load = passwordHashingLoad();
        return [
          { labels: { state: 'running' }, value: load.running },
          { labels: { state: 'waiting' }, value: load.waiting },
        ];
      },
    });
    // The tenant log's buffer: a level that grows while the database is slow or down, and the events it lost.
    metrics.addGauge({ name: 'latchkey_log_events_buffered', help: 'Tenant log events waiting in the buffer to be written.', collect: () => [{ value: events.stats().buffered }] });
    metrics.addCounter({
      name: 'latchkey_log_events_dropped_total',
      help: 'Tenant log events lost: refused by a full buffer, or given up as unstorable.',
      collect: () => events.stats().dropped,
    });
    metrics.addCounter({ name: 'latchkey_log_events_written_total', help: 'Tenant log events stored.', collect: () => events.stats().written });
    const poolUse = storage.dialect.poolUse;
    if (poolUse) {
      metrics.addGauge<'state'>({
        name: 'latchkey_database_pool_connections',
        help: 'PostgreSQL pool connections, open (total) and idle.',
        labelNames: ['state'],
        collect: () => {
          const use = poolUse();
          return [
            { labels: { state: 'total' }, value: use.total },
            { labels: { state: 'idle' }, value: use.idle },
          ];
        },
      });
      metrics.addGauge({ name: 'latchkey_database_pool_waiting', help: 'Queries waiting for a PostgreSQL pool connection.', collect: () => [{ value: poolUse().waiting }] });
    }
    // Credentials of log streams' sinks are sealed with their own key; delivery runs until `close()`.
    const streamSecrets = logStreamSecrets(secret.key('log-stream-secret-seal'));
    const streamDelivery = logStreamDelivery({ storage, tenantId, secrets: streamSecrets, log, ...(options.logStreams ? { options: options.logStreams } : {}) });
    metrics.addGauge<'stream'>({
      name: 'latchkey_log_stream_lag_events',
      help: 'Events of the tenant log stored after a log stream\'s position (not yet delivered or skipped by its filters), by stream id.',
      labelNames: ['stream'],
      // Read from the database, so every node reports the same figures whichever node delivers the stream.
      collect: async () => (await streamDelivery.lag().catch(() => [])).map(({ stream, events }) => ({ labels: { stream }, value: events })),
    });
    streamDelivery.start();
    // Stored jobs (users imports and exports) run here, each on one node at a time, until `close()`.
    const runner = jobRunner({ storage, tenantId, now, log, ...(options.jobs ? { options: options.jobs } : {}) });
    runner.start();
    const exportLinks = exportDownloads({ key: secret.key('users-export-download'), tenantId, baseUrl: config.issuer, now });
    return {
      config,
      log,
      storage,
      tenantId,
      issuer: config.issuer,
      issuerClaim,
      managementAudience: managementApiIdentifier(config.issuer),
      keys,
      tokens: tokenIssuer({ keys, issuerClaim, now }),
      oauthConfig,
      prompts: hostedPrompts(oauthConfig),
      userGrants: {
        userTokens: userTokens({ storage, config: oauthConfig, tenantId, keys, issuer: config.issuer, issuerClaim, managementAudience: managementApiIdentifier(config.issuer), consoleClientId: config.console ? CONSOLE_CLIENT_ID : undefined, handleKey, opaqueTokens, now }),
        databaseLogin: countedDatabaseLogin(databaseLogin({
          storage,
          tenantId,
          databaseConnections: oauthConfig.databaseConnections,
          protection,
          events,
          breached,
          attackProtection,
          notifyLeakedPassword: async (user, clientId) => {
            const url = await resets.create({ userId: user.id, clientId });
            await notifier.passwordLeaked({ email: user.email, url, clientName: (await oauthConfig.client(clientId))?.data.name ?? '' });
          },
          now,
        }), metrics),
        passwordless: countedPasswordless(passwordless({ storage, config: oauthConfig, tenantId, handleKey, now }), metrics),
        signIn,
        events,
        handleKey,
        mfa: mfaGrants,
        now,
      },
      sessions: sessionsService({ storage, tenantId, handleKey, now, lifetimes: sessionLifetimes }),
      consents: consent,
      invitations,
      organizations,
      actionTriggers,
      transactions,
      loginTickets: loginTickets({ storage, tenantId, handleKey, now }),
      upstream: upstreamLogin({
        storage,
        tenantId,
        issuer: config.issuer,
        transactions,
        client: upstreamClient({ now }),
        users: federatedUsers({ storage, tenantId, now }),
        saml: samlServiceProvider({ storage, certificates, tenantId, issuer: config.issuer, now }),
        connectionSecrets: sealedConnectionSecrets,
        allowHttp: !config.production,
      }),
      samlIdp: samlIdentityProvider({ certificates, issuer: config.issuer, tenantId, now }),
      passwordResets: resets,
      emailVerifications: emailVerifications({ storage, tenantId, issuer: config.issuer, handleKey, now }),
      notifier,
      delivery,
      outbox,
      handleKey,
      opaqueTokens,
      grantRevocations: grantRevocations({ storage, tenantId, ttlMs: config.configCacheSeconds * 1000, now }),
      connectionSecrets: sealedConnectionSecrets,
      clientSecretKey,
      clientAuth: {
        config: oauthConfig,
        secretKey: clientSecretKey,
        assertions: { storage, tenantId, audiences: [issuerClaim, config.issuer, `${config.issuer}/oauth/token`], now },
        edgeApiKey: config.edgeApiKey,
      },
      attackProtection,
      mfa,
      loginProtection: protection,
      breached,
      managementLimiter: createRateLimiter(config.managementRateLimit, { name: `mgmt:${tenantId}`, ...(redis ? { redis } : {}) }),
      authLimiter: (path) => {
        let limiter = authLimiters.get(path);
        if (!limiter) {
          limiter = createRateLimiter(config.authRateLimit.byPath.get(path) ?? config.authRateLimit.default, { name: `auth:${tenantId}:${path}`, ...(redis ? { redis } : {}) });
          authLimiters.set(path, limiter);
        }
        return limiter;
      },
      bootstrapResult,
      consoleCredentialsFile,
      events,
      logStreams: logStreamsService({ storage, tenantId, secrets: streamSecrets, allowHttp: !config.production, now }),
      jobs: jobsService({ storage, tenantId, now, wake: () => runner.wake(), downloads: exportLinks }),
      exportDownloads: exportLinks,
      actions,
      metrics,
      readiness: readinessProbe({ storage, redis }),
      now,
      // In the order Registry.close documents: writers stop, buffers flush, the database closes last.
      async close() {
        await sweeper.stop();
        // Before the event buffer's flush: delivery reads the log and writes positions, and then releases its leases.
        await streamDelivery.close();
        // A job in progress stops at its next batch and releases its lease; another node resumes it.
        await runner.close();
        // No request runs any more: the isolates go.
        actionsRuntime.dispose();
        await changeBus?.close();
        await events.close();
        redis?.disconnect();
        await delivery.close();
        await storage.close();
      },
    };
  } catch (error) {
    await changeBus?.close();
    redis?.disconnect();
    await storage.close();
    throw error;
  }
}
