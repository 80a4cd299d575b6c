import { parseActionsEgress } from './actions-egress.js';
import { parseRateLimit, parseRateLimitOverrides, type RateLimitSpec } from './rate-limit-spec.js';
import {
  database,
  host,
  issuer,
  logLevel,
  mailbox,
  onOff,
  port,
  secretOf32,
  tenantName,
  urlOf,
  wholeDays,
  wholeMegabytes,
  wholeMilliseconds,
  wholeSeconds,
} from './setting-parsers.js';
import { parseTrustProxy } from './trust-proxy.js';

/**
 * The one schema of Latchkey's settings. Each entry names an environment variable, its default, what it means and
 * how its value is parsed and checked; `loadConfig` reads them through it, `Config` takes its types from it, and
 * the README's configuration table is generated from it (a test fails when README and schema drift apart).
 */
export interface Setting {
  readonly env: string;
  /**
   * The value taken when the variable is unset or blank, parsed like a set one; `$NAME` in it stands for the value
   * of the setting NAME. Without a default the setting is optional: unset, its value is undefined.
   */
  readonly default?: string;
  /** What the README shows as the default when that is not a value (generated, or depends on NODE_ENV). */
  readonly shownDefault?: string;
  readonly meaning: string;
  /**
   * From the trimmed, non-empty value to what the configuration holds, or an Error saying what is wrong (the
   * reader names the variable). Without a parser the setting holds the text as it is.
   */
  readonly parse?: (raw: string) => unknown;
}

export const SETTINGS = [
  { env: 'PORT', default: '3000', meaning: 'TCP port to listen on.', parse: port },
  { env: 'HOST', default: '127.0.0.1', meaning: 'Address to listen on (`0.0.0.0` for all interfaces).', parse: host },
  {
    env: 'LATCHKEY_ISSUER',
    default: 'http://localhost:$PORT',
    meaning:
      'Public base URL (`{auth_url}`). The Management API is `$LATCHKEY_ISSUER/api/v2`; tokens carry `iss` = this URL plus a trailing `/`.',
    parse: issuer,
  },
  {
    env: 'DATABASE_URL',
    default: 'sqlite:./data/latchkey.db',
    meaning: '`sqlite:<path>` (embedded, WAL mode) or `postgres://user@host:port/db`.',
    parse: database,
  },
  {
    env: 'REDIS_URL',
    meaning: 'When set (`redis://host:port`), rate-limit counters live in Redis so several nodes share them; with SQLite, nodes also announce their changes to each other through it (pub/sub).',
    parse: urlOf('redis:', 'rediss:'),
  },
  { env: 'LATCHKEY_DATA_DIR', default: './data', meaning: 'Folder for generated development secrets and admin credentials.' },
  { env: 'LATCHKEY_TENANT', default: 'latchkey', meaning: 'Name of the tenant this deployment serves.', parse: tenantName },
  {
    env: 'LATCHKEY_ADMIN_CLIENT_ID',
    shownDefault: '(generated once)',
    meaning: 'Client ID of the bootstrap machine-to-machine application (granted every Management API scope).',
  },
  {
    env: 'LATCHKEY_ADMIN_CLIENT_SECRET',
    shownDefault: '(generated once)',
    meaning: 'Its secret. Generated credentials are written to `$LATCHKEY_DATA_DIR/admin-credentials.json` (mode 0600).',
  },
  {
    env: 'LATCHKEY_SECRET',
    shownDefault: '(generated in development)',
    meaning:
      'At least 32 characters; encrypts private signing keys at rest and keys the client-secret hashes. Required when `NODE_ENV=production`; in development it is generated into `$LATCHKEY_DATA_DIR/secret`.',
    parse: secretOf32('must be at least 32 characters'),
  },
  {
    env: 'SMTP_URL',
    meaning:
      'E-mail delivery through SMTP (`smtp://user:password@host:587`, `smtps://...:465`): codes, magic links, password resets, blocked-account notices. Unset, e-mails go to the local outbox (`$LATCHKEY_DATA_DIR/outbox.jsonl`, listed at `/dev/outbox` outside production).',
    parse: urlOf('smtp:', 'smtps:'),
  },
  { env: 'LATCHKEY_MAIL_FROM', default: 'Latchkey <no-reply@localhost>', meaning: 'Sender of the e-mails.', parse: mailbox },
  {
    env: 'LATCHKEY_SMS_URL',
    meaning:
      'SMS delivery: each message is POSTed to this URL as JSON `{"to": "+15551234567", "body": "...", "from": "..."}` (see README). Unset, text messages go to the local outbox.',
    parse: urlOf('http:', 'https:'),
  },
  { env: 'LATCHKEY_SMS_TOKEN', meaning: 'Sent to `LATCHKEY_SMS_URL` as `Authorization: Bearer <token>`.' },
  { env: 'LATCHKEY_SMS_FROM', default: 'Latchkey', meaning: 'The `from` of text messages.' },
  { env: 'LATCHKEY_TLS_CERT', meaning: 'PEM certificate file: serve HTTPS directly (with `LATCHKEY_TLS_KEY`).' },
  { env: 'LATCHKEY_TLS_KEY', meaning: 'PEM private key file for `LATCHKEY_TLS_CERT`.' },
  {
    env: 'LATCHKEY_MGMT_RATE_LIMIT',
    default: '50/s burst 100',
    meaning:
      'Management API limit per tenant: `<n>/<s|m|h>` sustained, optionally `burst <b>` allowing up to `b` in one window while the burst pool lasts.',
    parse: parseRateLimit,
  },
  {
    env: 'LATCHKEY_AUTH_RATE_LIMIT',
    default: '100/s burst 200',
    meaning: 'Authentication API limit per endpoint and client IP address (same syntax as above); every answer carries the X-RateLimit headers.',
    parse: parseRateLimit,
  },
  {
    env: 'LATCHKEY_AUTH_RATE_LIMITS',
    // Stricter per-IP limits where a request sends a message or creates an account.
    default: '/passwordless/start=30/m burst 60; /dbconnections/change_password=20/m burst 40; /dbconnections/signup=60/m burst 120',
    meaning: 'Per-endpoint exceptions to `LATCHKEY_AUTH_RATE_LIMIT`, `;`-separated `<path>=<limit>`, for the endpoints that send messages or create accounts.',
    parse: (raw): ReadonlyMap<string, RateLimitSpec> => parseRateLimitOverrides(raw),
  },
  {
    env: 'LATCHKEY_BREACHED_RANGE_URL',
    meaning:
      'Optional k-anonymity range API for breached-password detection (e.g. `https://api.pwnedpasswords.com/range/`): the first five hex digits of the SHA-1 are appended. The local list of the 200,000 most common passwords is always consulted.',
    parse: urlOf('http:', 'https:'),
  },
  {
    env: 'LATCHKEY_CONFIG_CACHE_SECONDS',
    default: '5',
    meaning:
      'How long a node may keep the configuration it read (clients, APIs, client grants, database connections, tenant settings, rendering configurations, the Actions bound to each trigger) for the token endpoint and the login pages (0-300; 0 reads the database on every request). Changes made through a node apply there at once, and on the other nodes as soon as they hear of them through PostgreSQL or Redis (see Operations); without either, other nodes see them within this time.',
    parse: wholeSeconds(0, 300),
  },
  {
    env: 'LATCHKEY_SWEEP_SECONDS',
    default: '600',
    meaning:
      'Seconds between sweeps that delete expired sessions, login transactions, codes, refresh tokens and attack-protection counters a day after they expired, and tenant log events and Actions executions (kept 10 days) once their retention is over (0-86400; 0 turns sweeping off). Every node sweeps; each statement deletes at most 500 rows.',
    parse: wholeSeconds(0, 86_400),
  },
  {
    env: 'LATCHKEY_LOG_RETENTION_DAYS',
    default: '30',
    meaning:
      'Days the tenant log (`/api/v2/logs`) keeps an event (1-3650). Expired events are deleted by the same sweeps as expired sessions (LATCHKEY_SWEEP_SECONDS).',
    parse: wholeDays(1, 3650),
  },
  {
    env: 'LATCHKEY_TENANT_LOG',
    default: 'on',
    meaning:
      'Records the tenant log (`on` or `off`). Off, no event is recorded or stored: `/api/v2/logs` and the stats stay empty and log streams have nothing to deliver. For measuring the log\'s cost, or a deployment that must keep no audit trail; the platform always records.',
    parse: onOff,
  },
  {
    env: 'LATCHKEY_ACTIONS_MODULES_DIR',
    meaning:
      'A directory of installed npm packages (`<dir>/node_modules/<name>`, e.g. filled by `npm install lodash@4.17.21` run in it) that Actions may declare as `dependencies`: an action\'s bare `require`s are bundled into it from here only, each one declared, at the installed version (or `latest`). Unset, actions can have no dependencies. Node built-ins (`fs`, `child_process`, …) are never available. See Actions.',
  },
  {
    env: 'LATCHKEY_ACTIONS_EGRESS',
    default: 'public',
    meaning:
      'What Actions may reach with `fetch`: `public` (public addresses only; loopback, private, link-local and other special ranges are refused, checked on the addresses a name resolves to) or `public,loopback` (also this host: tests and local development only).',
    parse: parseActionsEgress,
  },
  {
    env: 'LATCHKEY_ACTIONS_TIMEOUT_MS',
    default: '20000',
    meaning: 'Wall time of one Action\'s execution, compilation and waiting on `fetch` included (100-120000 ms; the platform allows a trigger\'s actions 20 seconds in all).',
    parse: wholeMilliseconds(100, 120_000),
  },
  {
    env: 'LATCHKEY_ACTIONS_MEMORY_MB',
    default: '64',
    meaning: 'Heap limit of one deployed Action version\'s isolate, shared by its concurrent executions (8-4096 MB); an execution that goes over it fails and the isolate is rebuilt.',
    parse: wholeMegabytes(8, 4096),
  },
  {
    env: 'LATCHKEY_EDGE_API_KEY',
    meaning:
      'Key the edge proxy that verifies client certificates sends as `cname-api-key` (at least 32 characters). When set, the token endpoint accepts mTLS client authentication from requests carrying it with `client-certificate` and `client-certificate-ca-verified`; unset, those headers are ignored.',
    parse: secretOf32('use at least 32 characters'),
  },
  {
    env: 'LATCHKEY_TRUST_PROXY',
    default: 'false',
    meaning:
      'Reverse proxies whose `X-Forwarded-For` header is believed: their addresses and CIDR ranges separated by commas (`10.0.0.0/8,127.0.0.1`; also `loopback`, `linklocal`, `uniquelocal`), or a hop count (`1` for the one proxy in front of Latchkey), or `true` for any. A hop count and `true` also believe whoever connects directly, so use them only where nothing reaches Latchkey except through the proxies. The client address found this way counts for the rate limits, attack protection and the logs. Unset, the connection\'s own address is the client\'s: behind a proxy every client then shares the proxy\'s address. See Operations.',
    parse: parseTrustProxy,
  },
  {
    env: 'LATCHKEY_HEADERS_TIMEOUT_SECONDS',
    default: '10',
    meaning: 'Seconds a client has to send a request\'s headers, counted from when it connects or starts the request (1-600); then it is answered 408 and the connection closed.',
    parse: wholeSeconds(1, 600),
  },
  {
    env: 'LATCHKEY_REQUEST_TIMEOUT_SECONDS',
    default: '30',
    meaning: 'Seconds a client has to send a whole request, headers and body (1-3600, at least the headers timeout); then it is answered 408 and the connection closed.',
    parse: wholeSeconds(1, 3600),
  },
  {
    env: 'LATCHKEY_KEEP_ALIVE_TIMEOUT_SECONDS',
    default: '5',
    meaning:
      'Seconds an idle keep-alive connection stays open for the next request (1-600). Behind a load balancer that reuses connections, set it above the balancer\'s idle timeout (e.g. 65 behind one that keeps them 60).',
    parse: wholeSeconds(1, 600),
  },
  {
    env: 'LATCHKEY_METRICS_PORT',
    meaning:
      'TCP port of a separate listener serving Prometheus metrics at `GET /metrics` (requests, latencies, sign-ins, tokens, refusals, the password-hash queue, the database pool, the tenant log buffer and its drops, log stream lag, event-loop lag). Unset, nothing listens: the metrics are never public by accident. See Operations.',
    parse: port,
  },
  {
    env: 'LATCHKEY_METRICS_HOST',
    default: '$HOST',
    shownDefault: '(same as HOST)',
    meaning: 'Address the metrics listener binds to, e.g. an internal interface the scraper reaches and the public does not.',
    parse: host,
  },
  {
    env: 'LATCHKEY_DEMO',
    default: 'on',
    shownDefault: 'on (off in production)',
    meaning:
      'The development-only demo application at `/demo/` (`on` or `off`): its own client `latchkey-demo`, the `Username-Password-Authentication` and `email` connections, created at start. Never served when `NODE_ENV=production`.',
    parse: onOff,
  },
  {
    env: 'LATCHKEY_CONSOLE',
    default: 'on',
    meaning:
      'The admin console at `/admin` (`on` or `off`): its first-party client `latchkey-console`, the `Latchkey Administrator` role (every Management API permission, honoured only for the console) and, at first start, a bootstrap administrator whose credentials are written to `$LATCHKEY_DATA_DIR/console-credentials.json` (mode 0600).',
    parse: onOff,
  },
  { env: 'NODE_ENV', default: 'development', meaning: '`production` requires `LATCHKEY_SECRET` and turns off development conveniences.', parse: (raw) => raw === 'production' },
  { env: 'LOG_LEVEL', default: 'info', meaning: 'pino log level (`fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`); `debug` and `trace` log every request, with the values of secret-bearing query parameters and the credential headers hidden.', parse: logLevel },
] as const satisfies readonly Setting[];

export type SettingName = (typeof SETTINGS)[number]['env'];

type Parsed<S> = S extends { parse: (raw: string) => infer T } ? T : string;

/** What each setting holds once read: its parser's result, or undefined for an optional setting left unset. */
export type SettingValues = { [S in (typeof SETTINGS)[number] as S['env']]: S extends { default: string } ? Parsed<S> : Parsed<S> | undefined };
