import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { SETTINGS, type Setting, type SettingName, type SettingValues } from './settings.js';

export type { DatabaseConfig } from './setting-parsers.js';

/** The type a setting's parser gives (settings.ts), so that the schema and this shape cannot disagree. */
type Value<Name extends SettingName> = SettingValues[Name];

export interface Config {
  port: Value<'PORT'>;
  host: Value<'HOST'>;
  issuer: Value<'LATCHKEY_ISSUER'>;
  database: Value<'DATABASE_URL'>;
  redisUrl: Value<'REDIS_URL'>;
  dataDir: Value<'LATCHKEY_DATA_DIR'>;
  tenant: Value<'LATCHKEY_TENANT'>;
  adminClientId: Value<'LATCHKEY_ADMIN_CLIENT_ID'>;
  adminClientSecret: Value<'LATCHKEY_ADMIN_CLIENT_SECRET'>;
  secret: Value<'LATCHKEY_SECRET'>;
  tls: { certFile: string; keyFile: string } | undefined;
  managementRateLimit: Value<'LATCHKEY_MGMT_RATE_LIMIT'>;
  breachedRangeUrl: Value<'LATCHKEY_BREACHED_RANGE_URL'>;
  /** Authentication API: per endpoint and IP address, with per-path exceptions. */
  authRateLimit: { default: Value<'LATCHKEY_AUTH_RATE_LIMIT'>; byPath: Value<'LATCHKEY_AUTH_RATE_LIMITS'> };
  configCacheSeconds: Value<'LATCHKEY_CONFIG_CACHE_SECONDS'>;
  /** Seconds between sweeps of expired artifacts; 0 turns sweeping off. */
  sweepSeconds: Value<'LATCHKEY_SWEEP_SECONDS'>;
  /** Days the tenant log keeps an event. */
  logRetentionDays: Value<'LATCHKEY_LOG_RETENTION_DAYS'>;
  /** Whether events are recorded at all (LATCHKEY_TENANT_LOG); off, the recorder is a no-op. */
  tenantLog: Value<'LATCHKEY_TENANT_LOG'>;
  /** E-mail and SMS delivery; unset channels write to the local outbox. */
  delivery: {
    smtpUrl: Value<'SMTP_URL'>;
    mailFrom: Value<'LATCHKEY_MAIL_FROM'>;
    smsUrl: Value<'LATCHKEY_SMS_URL'>;
    smsToken: Value<'LATCHKEY_SMS_TOKEN'>;
    smsFrom: Value<'LATCHKEY_SMS_FROM'>;
  };
  /** Shared with the customer edge that terminates mTLS; unset, forwarded certificates are not trusted. */
  edgeApiKey: Value<'LATCHKEY_EDGE_API_KEY'>;
  /** Tenant Actions: where their dependencies are installed, what `fetch` may reach, and their limits. */
  actions: {
    modulesDir: Value<'LATCHKEY_ACTIONS_MODULES_DIR'>;
    egress: Value<'LATCHKEY_ACTIONS_EGRESS'>;
    timeoutMs: Value<'LATCHKEY_ACTIONS_TIMEOUT_MS'>;
    memoryMb: Value<'LATCHKEY_ACTIONS_MEMORY_MB'>;
  };
  /** Reverse proxies whose X-Forwarded-For names the client (rate limits, attack protection, logs). */
  trustProxy: Value<'LATCHKEY_TRUST_PROXY'>;
  /** How long a client may take to send a request's headers, the whole request, and to reuse an idle connection. */
  timeouts: {
    headersSeconds: Value<'LATCHKEY_HEADERS_TIMEOUT_SECONDS'>;
    requestSeconds: Value<'LATCHKEY_REQUEST_TIMEOUT_SECONDS'>;
    keepAliveSeconds: Value<'LATCHKEY_KEEP_ALIVE_TIMEOUT_SECONDS'>;
  };
  /** The Prometheus listener (`GET /metrics`); undefined when LATCHKEY_METRICS_PORT is unset. */
  metrics: { port: NonNullable<Value<'LATCHKEY_METRICS_PORT'>>; host: Value<'LATCHKEY_METRICS_HOST'> } | undefined;
  production: Value<'NODE_ENV'>;
  /** Serve the demo application (`/demo/`) and provision its client; never in production. */
  demo: boolean;
  /** Serve the admin console (`/admin`) and provision its client, role and bootstrap administrator. */
  console: boolean;
  logLevel: Value<'LOG_LEVEL'>;
}

/** Raised for a setting that cannot be used; the CLI prints it and exits without starting. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads settings on demand: the trimmed value, else the schema's default (where `$NAME` is the value of the
 * setting NAME), parsed by the schema's parser once; a bad value throws ConfigError naming the variable. Reading on
 * demand lets loadConfig check the settings, and the rules joining them, in the order it lists them.
 */
function settingsReader(env: Env): <Name extends SettingName>(name: Name) => SettingValues[Name] {
  const schema = new Map<string, Setting>(SETTINGS.map((setting: Setting) => [setting.env, setting]));
  const values = new Map<string, unknown>();
  const read = (name: string): unknown => {
    if (values.has(name)) return values.get(name);
    const setting = schema.get(name);
    if (setting === undefined) throw new Error(`${name} is not in the settings schema`);
    const raw = env[name]?.trim() || setting.default?.replace(/\$([A-Z][A-Z0-9_]*)/g, (_, other: string) => String(read(other)));
    let value: unknown;
    try {
      value = raw === undefined || setting.parse === undefined ? raw : setting.parse(raw);
    } catch (error) {
      throw new ConfigError(name, (error as Error).message);
    }
    values.set(name, value);
    return value;
  };
  // The value comes from the entry named `name`, whose parser SettingValues[name] is derived from.
  return <Name extends SettingName>(name: Name) => read(name) as SettingValues[Name];
}

/** Checked here so that a wrong path stops the process before it opens the database or writes anything. */
function assertReadable(name: string, path: string): void {
  try {
    accessSync(path, constants.R_OK);
  } catch {
    throw new ConfigError(name, `cannot read the file "${path}"`);
  }
}

/** The Actions modules directory must be one this process can read, so that a wrong path stops it at start. */
function modulesDirectory(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    accessSync(dir, constants.R_OK);
  } catch {
    throw new ConfigError('LATCHKEY_ACTIONS_MODULES_DIR', `cannot read the directory "${dir}"`);
  }
  return resolve(dir);
}

/** HTTPS needs the certificate and its key; one without the other is reported before either file is opened. */
function tlsFiles(certFile: string | undefined, keyFile: string | undefined): Config['tls'] {
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError(certFile === undefined ? 'LATCHKEY_TLS_CERT' : 'LATCHKEY_TLS_KEY', 'set both LATCHKEY_TLS_CERT and LATCHKEY_TLS_KEY, or neither');
  }
  if (certFile === undefined || keyFile === undefined) return undefined;
  assertReadable('LATCHKEY_TLS_CERT', certFile);
  assertReadable('LATCHKEY_TLS_KEY', keyFile);
  return { certFile, keyFile };
}

/**
 * Each setting as the schema (settings.ts) parses it, and the rules that join several. The order is the order in
 * which a configuration with several mistakes reports them: the first one found stops the process.
 */
export function loadConfig(env: Env = process.env): Config {
  const read = settingsReader(env);
  const port = read('PORT');
  const issuer = read('LATCHKEY_ISSUER');
  const production = read('NODE_ENV');
  const secret = read('LATCHKEY_SECRET');
  if (production && secret === undefined) throw new ConfigError('LATCHKEY_SECRET', 'is required when NODE_ENV=production');
  const redisUrl = read('REDIS_URL');
  const tls = tlsFiles(read('LATCHKEY_TLS_CERT'), read('LATCHKEY_TLS_KEY'));
  const adminClientId = read('LATCHKEY_ADMIN_CLIENT_ID');
  const adminClientSecret = read('LATCHKEY_ADMIN_CLIENT_SECRET');
  if ((adminClientId === undefined) !== (adminClientSecret === undefined)) {
    throw new ConfigError('LATCHKEY_ADMIN_CLIENT_SECRET', 'set both LATCHKEY_ADMIN_CLIENT_ID and LATCHKEY_ADMIN_CLIENT_SECRET, or neither');
  }
  const tenant = read('LATCHKEY_TENANT');
  const logLevel = read('LOG_LEVEL');
  const managementRateLimit = read('LATCHKEY_MGMT_RATE_LIMIT');
  const authRateLimit = { default: read('LATCHKEY_AUTH_RATE_LIMIT'), byPath: read('LATCHKEY_AUTH_RATE_LIMITS') };
  const configCacheSeconds = read('LATCHKEY_CONFIG_CACHE_SECONDS');
  const sweepSeconds = read('LATCHKEY_SWEEP_SECONDS');
  const timeouts = {
    headersSeconds: read('LATCHKEY_HEADERS_TIMEOUT_SECONDS'),
    requestSeconds: read('LATCHKEY_REQUEST_TIMEOUT_SECONDS'),
    keepAliveSeconds: read('LATCHKEY_KEEP_ALIVE_TIMEOUT_SECONDS'),
  };
  // Node refuses a headers timeout longer than the request timeout (the headers are part of the request).
  if (timeouts.headersSeconds > timeouts.requestSeconds) {
    throw new ConfigError('LATCHKEY_HEADERS_TIMEOUT_SECONDS', `must not exceed LATCHKEY_REQUEST_TIMEOUT_SECONDS (${timeouts.requestSeconds})`);
  }
  const trustProxy = read('LATCHKEY_TRUST_PROXY');
  const edgeApiKey = read('LATCHKEY_EDGE_API_KEY');
  const metricsPort = read('LATCHKEY_METRICS_PORT');
  // Checked even while the listener is off, so a mistake shows before the day it is turned on.
  const metricsHost = read('LATCHKEY_METRICS_HOST');
  const metrics = metricsPort === undefined ? undefined : { port: metricsPort, host: metricsHost };
  const demo = read('LATCHKEY_DEMO') && !production;
  const breachedRangeUrl = read('LATCHKEY_BREACHED_RANGE_URL');
  const smtpUrl = read('SMTP_URL');
  const smsUrl = read('LATCHKEY_SMS_URL');
  const mailFrom = read('LATCHKEY_MAIL_FROM');
  const actions = {
    modulesDir: modulesDirectory(read('LATCHKEY_ACTIONS_MODULES_DIR')),
    egress: read('LATCHKEY_ACTIONS_EGRESS'),
    timeoutMs: read('LATCHKEY_ACTIONS_TIMEOUT_MS'),
    memoryMb: read('LATCHKEY_ACTIONS_MEMORY_MB'),
  };
  return {
    port,
    host: read('HOST'),
    issuer,
    database: read('DATABASE_URL'),
    redisUrl,
    dataDir: read('LATCHKEY_DATA_DIR'),
    tenant,
    adminClientId,
    adminClientSecret,
    secret,
    tls,
    managementRateLimit,
    breachedRangeUrl,
    authRateLimit,
    configCacheSeconds,
    sweepSeconds,
    logRetentionDays: read('LATCHKEY_LOG_RETENTION_DAYS'),
    tenantLog: read('LATCHKEY_TENANT_LOG'),
    edgeApiKey,
    actions,
    trustProxy,
    timeouts,
    delivery: { smtpUrl, mailFrom, smsUrl, smsToken: read('LATCHKEY_SMS_TOKEN'), smsFrom: read('LATCHKEY_SMS_FROM') },
    metrics,
    production,
    demo,
    console: read('LATCHKEY_CONSOLE'),
    logLevel,
  };
}
