/**
 * The one schema of Latchkey's settings. Each entry names an environment variable, its default and what it
 * means; `loadConfig` reads them and the README's configuration table is generated from this list (a test
 * fails when the two drift apart).
 */
export interface Setting {
  readonly env: string;
  readonly default: string;
  readonly meaning: string;
}

/** Stricter per-IP limits where a request sends a message or creates an account. */
export const AUTH_RATE_LIMIT_OVERRIDES = '/passwordless/start=30/m burst 60; /dbconnections/change_password=20/m burst 40; /dbconnections/signup=60/m burst 120';

export const SETTINGS = [
  { env: 'PORT', default: '3000', meaning: 'TCP port to listen on.' },
  { env: 'HOST', default: '127.0.0.1', meaning: 'Address to listen on (`0.0.0.0` for all interfaces).' },
  {
    env: 'LATCHKEY_ISSUER',
    default: 'http://localhost:$PORT',
    meaning:
      'Public base URL (`{auth_url}`). The Management API is `$LATCHKEY_ISSUER/api/v2`; tokens carry `iss` = this URL plus a trailing `/`.',
  },
  {
    env: 'DATABASE_URL',
    default: 'sqlite:./data/latchkey.db',
    meaning: '`sqlite:<path>` (embedded, WAL mode) or `postgres://user@host:port/db`.',
  },
  {
    env: 'REDIS_URL',
    default: '',
    meaning: 'When set (`redis://host:port`), rate-limit counters live in Redis so several nodes share them; with SQLite, nodes also announce their changes to each other through it (pub/sub).',
  },
  { env: 'LATCHKEY_DATA_DIR', default: './data', meaning: 'Folder for generated development secrets and admin credentials.' },
  { env: 'LATCHKEY_TENANT', default: 'latchkey', meaning: 'Name of the tenant this deployment serves.' },
  {
    env: 'LATCHKEY_ADMIN_CLIENT_ID',
    default: '(generated once)',
    meaning: 'Client ID of the bootstrap machine-to-machine application (granted every Management API scope).',
  },
  {
    env: 'LATCHKEY_ADMIN_CLIENT_SECRET',
    default: '(generated once)',
    meaning: 'Its secret. Generated credentials are written to `$LATCHKEY_DATA_DIR/admin-credentials.json` (mode 0600).',
  },
  {
    env: 'LATCHKEY_SECRET',
    default: '(generated in development)',
    meaning:
      'At least 32 characters; encrypts private signing keys at rest and keys the client-secret hashes. Required when `NODE_ENV=production`; in development it is generated into `$LATCHKEY_DATA_DIR/secret`.',
  },
  {
    env: 'SMTP_URL',
    default: '',
    meaning:
      'E-mail delivery through SMTP (`smtp://user:password@host:587`, `smtps://...:465`): codes, magic links, password resets, blocked-account notices. Unset, e-mails go to the local outbox (`$LATCHKEY_DATA_DIR/outbox.jsonl`, listed at `/dev/outbox` outside production).',
  },
  { env: 'LATCHKEY_MAIL_FROM', default: 'Latchkey <no-reply@localhost>', meaning: 'Sender of the e-mails.' },
  {
    env: 'LATCHKEY_SMS_URL',
    default: '',
    meaning:
      'SMS delivery: each message is POSTed to this URL as JSON `{"to": "+15551234567", "body": "...", "from": "..."}` (see README). Unset, text messages go to the local outbox.',
  },
  { env: 'LATCHKEY_SMS_TOKEN', default: '', meaning: 'Sent to `LATCHKEY_SMS_URL` as `Authorization: Bearer <token>`.' },
  { env: 'LATCHKEY_SMS_FROM', default: 'Latchkey', meaning: 'The `from` of text messages.' },
  { env: 'LATCHKEY_TLS_CERT', default: '', meaning: 'PEM certificate file: serve HTTPS directly (with `LATCHKEY_TLS_KEY`).' },
  { env: 'LATCHKEY_TLS_KEY', default: '', meaning: 'PEM private key file for `LATCHKEY_TLS_CERT`.' },
  {
    env: 'LATCHKEY_MGMT_RATE_LIMIT',
    default: '50/s burst 100',
    meaning:
      'Management API limit per tenant: `<n>/<s|m|h>` sustained, optionally `burst <b>` allowing up to `b` in one window while the burst pool lasts.',
  },
  {
    env: 'LATCHKEY_AUTH_RATE_LIMIT',
    default: '100/s burst 200',
    meaning: 'Authentication API limit per endpoint and client IP address (same syntax as above); every answer carries the X-RateLimit headers.',
  },
  {
    env: 'LATCHKEY_AUTH_RATE_LIMITS',
    default: AUTH_RATE_LIMIT_OVERRIDES,
    meaning: 'Per-endpoint exceptions to `LATCHKEY_AUTH_RATE_LIMIT`, `;`-separated `<path>=<limit>`, for the endpoints that send messages or create accounts.',
  },
  {
    env: 'LATCHKEY_BREACHED_RANGE_URL',
    default: '',
    meaning:
      'Optional k-anonymity range API for breached-password detection (e.g. `https://api.pwnedpasswords.com/range/`): the first five hex digits of the SHA-1 are appended. The local list of the 200,000 most common passwords is always consulted.',
  },
  {
    env: 'LATCHKEY_CONFIG_CACHE_SECONDS',
    default: '5',
    meaning:
      'How long a node may keep the configuration it read (clients, APIs, client grants, database connections, tenant settings, rendering configurations) for the token endpoint and the login pages (0-300; 0 reads the database on every request). Changes made through a node apply there at once, and on the other nodes as soon as they hear of them through PostgreSQL or Redis (see Operations); without either, other nodes see them within this time.',
  },
  {
    env: 'LATCHKEY_SWEEP_SECONDS',
    default: '600',
    meaning:
      'Seconds between sweeps that delete expired sessions, login transactions, codes, refresh tokens and attack-protection counters a day after they expired (0-86400; 0 turns sweeping off). Every node sweeps; each statement deletes at most 500 rows.',
  },
  {
    env: 'LATCHKEY_EDGE_API_KEY',
    default: '',
    meaning:
      'Key the edge proxy that verifies client certificates sends as `cname-api-key` (at least 32 characters). When set, the token endpoint accepts mTLS client authentication from requests carrying it with `client-certificate` and `client-certificate-ca-verified`; unset, those headers are ignored.',
  },
  {
    env: 'LATCHKEY_TRUST_PROXY',
    default: '',
    meaning:
      'Reverse proxies whose `X-Forwarded-For` header is believed: their addresses and CIDR ranges separated by commas (`10.0.0.0/8,127.0.0.1`; also `loopback`, `linklocal`, `uniquelocal`), or a hop count (`1` for the one proxy in front of Latchkey), or `true` for any. A hop count and `true` also believe whoever connects directly, so use them only where nothing reaches Latchkey except through the proxies. The client address found this way counts for the rate limits, attack protection and the logs. Unset, the connection\'s own address is the client\'s: behind a proxy every client then shares the proxy\'s address. See Operations.',
  },
  {
    env: 'LATCHKEY_HEADERS_TIMEOUT_SECONDS',
    default: '10',
    meaning: 'Seconds a client has to send a request\'s headers, counted from when it connects or starts the request (1-600); then it is answered 408 and the connection closed.',
  },
  {
    env: 'LATCHKEY_REQUEST_TIMEOUT_SECONDS',
    default: '30',
    meaning: 'Seconds a client has to send a whole request, headers and body (1-3600, at least the headers timeout); then it is answered 408 and the connection closed.',
  },
  {
    env: 'LATCHKEY_KEEP_ALIVE_TIMEOUT_SECONDS',
    default: '5',
    meaning:
      'Seconds an idle keep-alive connection stays open for the next request (1-600). Behind a load balancer that reuses connections, set it above the balancer\'s idle timeout (e.g. 65 behind one that keeps them 60).',
  },
  {
    env: 'LATCHKEY_DEMO',
    default: 'on (off in production)',
    meaning:
      'The development-only demo application at `/demo/` (`on` or `off`): its own client `latchkey-demo`, the `Username-Password-Authentication` and `email` connections, created at start. Never served when `NODE_ENV=production`.',
  },
  { env: 'NODE_ENV', default: 'development', meaning: '`production` requires `LATCHKEY_SECRET` and turns off development conveniences.' },
  { env: 'LOG_LEVEL', default: 'info', meaning: 'pino log level (`fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`); `debug` and `trace` log every request, with the values of secret-bearing query parameters and the credential headers hidden.' },
] as const satisfies readonly Setting[];

export type SettingName = (typeof SETTINGS)[number]['env'];
