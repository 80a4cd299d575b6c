import { accessSync, constants } from 'node:fs';
import { isIP } from 'node:net';
import { parseRateLimit, parseRateLimitOverrides, type RateLimitSpec } from './rate-limit-spec.js';
import { AUTH_RATE_LIMIT_OVERRIDES } from './settings.js';
import { parseTrustProxy, type TrustProxy } from './trust-proxy.js';

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface Config {
  port: number;
  host: string;
  issuer: string;
  database: DatabaseConfig;
  redisUrl: string | undefined;
  dataDir: string;
  tenant: string;
  adminClientId: string | undefined;
  adminClientSecret: string | undefined;
  secret: string | undefined;
  tls: { certFile: string; keyFile: string } | undefined;
  managementRateLimit: RateLimitSpec;
  breachedRangeUrl: string | undefined;
  /** Authentication API: per endpoint and IP address, with per-path exceptions. */
  authRateLimit: { default: RateLimitSpec; byPath: ReadonlyMap<string, RateLimitSpec> };
  configCacheSeconds: number;
  /** Seconds between sweeps of expired artifacts; 0 turns sweeping off. */
  sweepSeconds: number;
  /** E-mail and SMS delivery; unset channels write to the local outbox. */
  delivery: {
    smtpUrl: string | undefined;
    mailFrom: string;
    smsUrl: string | undefined;
    smsToken: string | undefined;
    smsFrom: string;
  };
  /** Shared with the customer edge that terminates mTLS; unset, forwarded certificates are not trusted. */
  edgeApiKey: string | undefined;
  /** Reverse proxies whose X-Forwarded-For names the client (rate limits, attack protection, logs). */
  trustProxy: TrustProxy;
  /** How long a client may take to send a request's headers, the whole request, and to reuse an idle connection. */
  timeouts: { headersSeconds: number; requestSeconds: number; keepAliveSeconds: number };
  production: boolean;
  /** Serve the demo application (`/demo/`) and provision its client; never in production. */
  demo: boolean;
  logLevel: string;
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

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function parsePort(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) throw new ConfigError('PORT', `expected a port number 0-65535, got "${raw}"`);
  return Number(raw);
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

function parseHost(raw: string): string {
  if (isIP(raw) === 0 && !HOSTNAME.test(raw)) throw new ConfigError('HOST', `expected an IP address or a host name, got "${raw}"`);
  return raw;
}

/** Checked here so that a wrong path stops the process before it opens the database or writes anything. */
function assertReadable(name: string, path: string): void {
  try {
    accessSync(path, constants.R_OK);
  } catch {
    throw new ConfigError(name, `cannot read the file "${path}"`);
  }
}

function parseUrl(name: string, raw: string, protocols: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `not a URL: "${raw}"`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL, got "${raw}"`);
  }
  return url;
}

function parseDatabase(raw: string): DatabaseConfig {
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length);
    if (!path) throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path, e.g. sqlite:./data/latchkey.db');
    return { kind: 'sqlite', path };
  }
  parseUrl('DATABASE_URL', raw, ['postgres:', 'postgresql:']);
  return { kind: 'postgres', url: raw };
}

export function loadConfig(env: Env = process.env): Config {
  const port = parsePort(read(env, 'PORT') ?? '3000');
  const issuerRaw = read(env, 'LATCHKEY_ISSUER') ?? `http://localhost:${port}`;
  const issuerUrl = parseUrl('LATCHKEY_ISSUER', issuerRaw, ['http:', 'https:']);
  if (issuerUrl.search || issuerUrl.hash) throw new ConfigError('LATCHKEY_ISSUER', 'must not carry a query or fragment');
  const production = read(env, 'NODE_ENV') === 'production';
  const secret = read(env, 'LATCHKEY_SECRET');
  if (secret !== undefined && secret.length < 32) throw new ConfigError('LATCHKEY_SECRET', 'must be at least 32 characters');
  if (production && secret === undefined) throw new ConfigError('LATCHKEY_SECRET', 'is required when NODE_ENV=production');
  const redisUrl = read(env, 'REDIS_URL');
  if (redisUrl !== undefined) parseUrl('REDIS_URL', redisUrl, ['redis:', 'rediss:']);
  const certFile = read(env, 'LATCHKEY_TLS_CERT');
  const keyFile = read(env, 'LATCHKEY_TLS_KEY');
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError(certFile === undefined ? 'LATCHKEY_TLS_CERT' : 'LATCHKEY_TLS_KEY', 'set both LATCHKEY_TLS_CERT and LATCHKEY_TLS_KEY, or neither');
  }
  if (certFile !== undefined) assertReadable('LATCHKEY_TLS_CERT', certFile);
  if (keyFile !== undefined) assertReadable('LATCHKEY_TLS_KEY', keyFile);
  const adminClientId = read(env, 'LATCHKEY_ADMIN_CLIENT_ID');
  const adminClientSecret = read(env, 'LATCHKEY_ADMIN_CLIENT_SECRET');
  if ((adminClientId === undefined) !== (adminClientSecret === undefined)) {
    throw new ConfigError('LATCHKEY_ADMIN_CLIENT_SECRET', 'set both LATCHKEY_ADMIN_CLIENT_ID and LATCHKEY_ADMIN_CLIENT_SECRET, or neither');
  }
  const tenant = read(env, 'LATCHKEY_TENANT') ?? 'latchkey';
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(tenant)) throw new ConfigError('LATCHKEY_TENANT', 'use lower-case letters, digits and dashes');
  const logLevel = read(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.has(logLevel)) throw new ConfigError('LOG_LEVEL', `unknown level "${logLevel}"`);
  const rateRaw = read(env, 'LATCHKEY_MGMT_RATE_LIMIT') ?? '50/s burst 100';
  let managementRateLimit: RateLimitSpec;
  try {
    managementRateLimit = parseRateLimit(rateRaw);
  } catch (error) {
    throw new ConfigError('LATCHKEY_MGMT_RATE_LIMIT', (error as Error).message);
  }
  let authRateLimit: Config['authRateLimit'];
  try {
    authRateLimit = { default: parseRateLimit(read(env, 'LATCHKEY_AUTH_RATE_LIMIT') ?? '100/s burst 200'), byPath: new Map() };
  } catch (error) {
    throw new ConfigError('LATCHKEY_AUTH_RATE_LIMIT', (error as Error).message);
  }
  try {
    authRateLimit = { ...authRateLimit, byPath: parseRateLimitOverrides(read(env, 'LATCHKEY_AUTH_RATE_LIMITS') ?? AUTH_RATE_LIMIT_OVERRIDES) };
  } catch (error) {
    throw new ConfigError('LATCHKEY_AUTH_RATE_LIMITS', (error as Error).message);
  }
  const seconds = (name: string, fallback: number, min: number, max: number) => {
    const raw = read(env, name) ?? String(fallback);
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new ConfigError(name, `expected whole seconds ${min}-${max}, got "${raw}"`);
    return Number(raw);
  };
  const configCacheSeconds = seconds('LATCHKEY_CONFIG_CACHE_SECONDS', 5, 0, 300);
  const sweepSeconds = seconds('LATCHKEY_SWEEP_SECONDS', 600, 0, 86_400);
  const timeouts = {
    headersSeconds: seconds('LATCHKEY_HEADERS_TIMEOUT_SECONDS', 10, 1, 600),
    requestSeconds: seconds('LATCHKEY_REQUEST_TIMEOUT_SECONDS', 30, 1, 3600),
    keepAliveSeconds: seconds('LATCHKEY_KEEP_ALIVE_TIMEOUT_SECONDS', 5, 1, 600),
  };
  // Node refuses a headers timeout longer than the request timeout (the headers are part of the request).
  if (timeouts.headersSeconds > timeouts.requestSeconds) {
    throw new ConfigError('LATCHKEY_HEADERS_TIMEOUT_SECONDS', `must not exceed LATCHKEY_REQUEST_TIMEOUT_SECONDS (${timeouts.requestSeconds})`);
  }
  let trustProxy: TrustProxy;
  try {
    trustProxy = parseTrustProxy(read(env, 'LATCHKEY_TRUST_PROXY'));
  } catch (error) {
    throw new ConfigError('LATCHKEY_TRUST_PROXY', (error as Error).message);
  }
  const edgeApiKey = read(env, 'LATCHKEY_EDGE_API_KEY');
  if (edgeApiKey !== undefined && edgeApiKey.length < 32) throw new ConfigError('LATCHKEY_EDGE_API_KEY', 'use at least 32 characters');
  const demoSetting = read(env, 'LATCHKEY_DEMO') ?? 'on';
  if (demoSetting !== 'on' && demoSetting !== 'off') throw new ConfigError('LATCHKEY_DEMO', 'must be on or off');
  const demo = demoSetting === 'on' && !production;
  const breachedRangeUrl = read(env, 'LATCHKEY_BREACHED_RANGE_URL');
  if (breachedRangeUrl !== undefined) parseUrl('LATCHKEY_BREACHED_RANGE_URL', breachedRangeUrl, ['http:', 'https:']);
  const smtpUrl = read(env, 'SMTP_URL');
  if (smtpUrl !== undefined) parseUrl('SMTP_URL', smtpUrl, ['smtp:', 'smtps:']);
  const smsUrl = read(env, 'LATCHKEY_SMS_URL');
  if (smsUrl !== undefined) parseUrl('LATCHKEY_SMS_URL', smsUrl, ['http:', 'https:']);
  const mailFrom = read(env, 'LATCHKEY_MAIL_FROM') ?? 'Latchkey <no-reply@localhost>';
  if (!/@/.test(mailFrom) || /[\r\n]/.test(mailFrom)) throw new ConfigError('LATCHKEY_MAIL_FROM', 'expected an address such as "Name <no-reply@example.com>"');
  return {
    port,
    host: parseHost(read(env, 'HOST') ?? '127.0.0.1'),
    issuer: issuerUrl.href.replace(/\/+$/, ''),
    database: parseDatabase(read(env, 'DATABASE_URL') ?? 'sqlite:./data/latchkey.db'),
    redisUrl,
    dataDir: read(env, 'LATCHKEY_DATA_DIR') ?? './data',
    tenant,
    adminClientId,
    adminClientSecret,
    secret,
    tls: certFile !== undefined && keyFile !== undefined ? { certFile, keyFile } : undefined,
    managementRateLimit,
    breachedRangeUrl,
    authRateLimit,
    configCacheSeconds,
    sweepSeconds,
    edgeApiKey,
    trustProxy,
    timeouts,
    delivery: {
      smtpUrl,
      mailFrom,
      smsUrl,
      smsToken: read(env, 'LATCHKEY_SMS_TOKEN'),
      smsFrom: read(env, 'LATCHKEY_SMS_FROM') ?? 'Latchkey',
    },
    production,
    demo,
    logLevel,
  };
}
