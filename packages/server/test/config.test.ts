import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config/load.js';
import { developmentSecret } from '../src/crypto/deployment-secret.js';
import { runCli } from './support/processes.js';

// The defaults, the common invalid values and the CLI's exit on them are in config-and-cli.test.ts; this file
// covers host names, TLS files, normalisation, and the generated development secret.

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-config-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const configError = (env: Record<string, string>): ConfigError => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
};

describe('loadConfig', () => {
  it('accepts IP addresses and host names for HOST, and rejects anything else naming HOST', () => {
    for (const host of ['0.0.0.0', '127.0.0.1', '::', '::1', 'localhost', 'id-1.internal.example.com']) {
      expect(loadConfig({ HOST: host }).host).toBe(host);
    }
    for (const host of ['not a host', 'http://localhost', 'host_name', '-leading.example', 'a..b', '999.1.1.1.1:80']) {
      const error = configError({ HOST: host });
      expect(error.variable).toBe('HOST');
      expect(error.message).toBe(`HOST: expected an IP address or a host name, got "${host}"`);
    }
  });

  it('serves the demo by default in development, never in production, and names LATCHKEY_DEMO when it is neither on nor off', () => {
    expect(loadConfig({}).demo).toBe(true);
    expect(loadConfig({ LATCHKEY_DEMO: 'off' }).demo).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', LATCHKEY_SECRET: 's'.repeat(40), LATCHKEY_DEMO: 'on' }).demo).toBe(false);
    expect(configError({ LATCHKEY_DEMO: 'yes' }).message).toContain('LATCHKEY_DEMO');
  });

  it('takes LATCHKEY_EDGE_API_KEY only when long enough to be a shared secret', () => {
    expect(loadConfig({}).edgeApiKey).toBeUndefined();
    expect(loadConfig({ LATCHKEY_EDGE_API_KEY: 'k'.repeat(32) }).edgeApiKey).toBe('k'.repeat(32));
    const error = configError({ LATCHKEY_EDGE_API_KEY: 'short' });
    expect(error.variable).toBe('LATCHKEY_EDGE_API_KEY');
  });

  it('trusts no proxy unless LATCHKEY_TRUST_PROXY names a hop count, addresses and CIDR ranges, or true', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ LATCHKEY_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ LATCHKEY_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ LATCHKEY_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ LATCHKEY_TRUST_PROXY: ' 10.0.0.0/8, 127.0.0.1,::1, fd00::/8,loopback ' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8', 'loopback']);
    for (const bad of ['0', '11', 'yes', '10.0.0.0/33', '::/129', '10.0.0.1/8/8', 'proxy.internal', '10.0.0.1,', '10.0.0.0/x']) {
      const error = configError({ LATCHKEY_TRUST_PROXY: bad });
      expect(error.variable, bad).toBe('LATCHKEY_TRUST_PROXY');
    }
  });

  it('gives slow clients 10 s for headers, 30 s for a request and 5 s of keep-alive unless configured otherwise', () => {
    expect(loadConfig({}).timeouts).toEqual({ headersSeconds: 10, requestSeconds: 30, keepAliveSeconds: 5 });
    const configured = { LATCHKEY_HEADERS_TIMEOUT_SECONDS: '20', LATCHKEY_REQUEST_TIMEOUT_SECONDS: '20', LATCHKEY_KEEP_ALIVE_TIMEOUT_SECONDS: '65' };
    expect(loadConfig(configured).timeouts).toEqual({ headersSeconds: 20, requestSeconds: 20, keepAliveSeconds: 65 });
    for (const [variable, bad] of [['LATCHKEY_HEADERS_TIMEOUT_SECONDS', '0'], ['LATCHKEY_REQUEST_TIMEOUT_SECONDS', '3601'], ['LATCHKEY_KEEP_ALIVE_TIMEOUT_SECONDS', '1.5']] as const) {
      expect(configError({ [variable]: bad }).message).toMatch(new RegExp(`^${variable}: expected whole seconds \\d+-\\d+, got "${bad}"$`));
    }
    // The headers are part of the request: Node refuses a longer timeout for them.
    const error = configError({ LATCHKEY_HEADERS_TIMEOUT_SECONDS: '31' });
    expect(error.message).toBe('LATCHKEY_HEADERS_TIMEOUT_SECONDS: must not exceed LATCHKEY_REQUEST_TIMEOUT_SECONDS (30)');
  });

  it('sweeps expired artifacts every ten minutes unless LATCHKEY_SWEEP_SECONDS says otherwise (0 is off)', () => {
    expect(loadConfig({}).sweepSeconds).toBe(600);
    expect(loadConfig({ LATCHKEY_SWEEP_SECONDS: '0' }).sweepSeconds).toBe(0);
    expect(loadConfig({ LATCHKEY_SWEEP_SECONDS: '86400' }).sweepSeconds).toBe(86_400);
    for (const bad of ['-1', '1.5', 'hourly', '86401']) expect(configError({ LATCHKEY_SWEEP_SECONDS: bad }).variable).toBe('LATCHKEY_SWEEP_SECONDS');
  });

  it('keeps tenant log events 30 days unless LATCHKEY_LOG_RETENTION_DAYS says otherwise, in whole days from 1 to 3650', () => {
    expect(loadConfig({}).logRetentionDays).toBe(30);
    expect(loadConfig({ LATCHKEY_LOG_RETENTION_DAYS: '1' }).logRetentionDays).toBe(1);
    expect(loadConfig({ LATCHKEY_LOG_RETENTION_DAYS: '3650' }).logRetentionDays).toBe(3650);
    for (const bad of ['0', '-1', '1.5', '3651', '30d', 'forever']) {
      const error = configError({ LATCHKEY_LOG_RETENTION_DAYS: bad });
      expect(error.variable).toBe('LATCHKEY_LOG_RETENTION_DAYS');
      expect(error.message).toContain('1-3650');
    }
  });

  it('records the tenant log unless LATCHKEY_TENANT_LOG is off, and names the variable when it is neither on nor off', () => {
    expect(loadConfig({}).tenantLog).toBe(true);
    expect(loadConfig({ LATCHKEY_TENANT_LOG: 'on' }).tenantLog).toBe(true);
    expect(loadConfig({ LATCHKEY_TENANT_LOG: 'off' }).tenantLog).toBe(false);
    expect(configError({ LATCHKEY_TENANT_LOG: 'no' }).variable).toBe('LATCHKEY_TENANT_LOG');
  });

  it('reads the delivery settings and names the variable of a bad one', () => {
    expect(loadConfig({}).delivery).toEqual({ smtpUrl: undefined, mailFrom: 'Latchkey <no-reply@localhost>', smsUrl: undefined, smsToken: undefined, smsFrom: 'Latchkey' });
    const configured = loadConfig({ SMTP_URL: 'smtps://u:p@mail.example.com:465', LATCHKEY_SMS_URL: 'https://sms.example.com/send', LATCHKEY_SMS_TOKEN: 't' });
    expect(configured.delivery).toMatchObject({ smtpUrl: 'smtps://u:p@mail.example.com:465', smsUrl: 'https://sms.example.com/send', smsToken: 't' });
    expect(configError({ SMTP_URL: 'http://mail.example.com' }).variable).toBe('SMTP_URL');
    expect(configError({ LATCHKEY_SMS_URL: 'ftp://sms.example.com' }).variable).toBe('LATCHKEY_SMS_URL');
    expect(configError({ LATCHKEY_MAIL_FROM: 'nobody' }).variable).toBe('LATCHKEY_MAIL_FROM');
  });

  it('reads the Authentication API limits and their per-path exceptions, naming the variable of a bad one', () => {
    const defaults = loadConfig({}).authRateLimit;
    expect(defaults.default).toEqual({ points: 100, durationSeconds: 1, burst: 200 });
    expect(defaults.byPath.get('/passwordless/start')).toEqual({ points: 30, durationSeconds: 60, burst: 60 });
    const custom = loadConfig({ LATCHKEY_AUTH_RATE_LIMIT: '10/s', LATCHKEY_AUTH_RATE_LIMITS: '/oauth/token=5/s burst 8' }).authRateLimit;
    expect([custom.default.points, [...custom.byPath.keys()]]).toEqual([10, ['/oauth/token']]);
    expect(configError({ LATCHKEY_AUTH_RATE_LIMIT: 'fast' }).variable).toBe('LATCHKEY_AUTH_RATE_LIMIT');
    expect(configError({ LATCHKEY_AUTH_RATE_LIMITS: 'oauth/token=5/s' }).variable).toBe('LATCHKEY_AUTH_RATE_LIMITS');
    expect(configError({ LATCHKEY_AUTH_RATE_LIMITS: '/oauth/token=often' }).variable).toBe('LATCHKEY_AUTH_RATE_LIMITS');
  });

  it('runs Actions with public egress, 20 s and 64 MB unless configured, and with dependencies only from a readable modules directory', () => {
    expect(loadConfig({}).actions).toEqual({ modulesDir: undefined, egress: { allowLoopback: false }, timeoutMs: 20_000, memoryMb: 64 });
    const dir = tempDir();
    const configured = loadConfig({ LATCHKEY_ACTIONS_MODULES_DIR: dir, LATCHKEY_ACTIONS_EGRESS: 'public,loopback', LATCHKEY_ACTIONS_TIMEOUT_MS: '1500', LATCHKEY_ACTIONS_MEMORY_MB: '128' });
    expect(configured.actions).toEqual({ modulesDir: dir, egress: { allowLoopback: true }, timeoutMs: 1500, memoryMb: 128 });
    expect(configError({ LATCHKEY_ACTIONS_MODULES_DIR: join(dir, 'nope') }).message).toBe(`LATCHKEY_ACTIONS_MODULES_DIR: cannot read the directory "${join(dir, 'nope')}"`);
    writeFileSync(join(dir, 'file'), 'not a directory');
    expect(configError({ LATCHKEY_ACTIONS_MODULES_DIR: join(dir, 'file') }).variable).toBe('LATCHKEY_ACTIONS_MODULES_DIR');
    expect(configError({ LATCHKEY_ACTIONS_EGRESS: 'loopback' }).variable).toBe('LATCHKEY_ACTIONS_EGRESS');
    for (const bad of ['99', '120001', '1.5', '20s']) expect(configError({ LATCHKEY_ACTIONS_TIMEOUT_MS: bad }).message).toContain('whole milliseconds 100-120000');
    for (const bad of ['7', '4097', 'lots']) expect(configError({ LATCHKEY_ACTIONS_MEMORY_MB: bad }).message).toContain('whole megabytes 8-4096');
  });

  it('requires the TLS files to be readable, naming the variable of the missing one', () => {
    const dir = tempDir();
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    writeFileSync(cert, 'certificate');
    writeFileSync(key, 'key');
    expect(loadConfig({ LATCHKEY_TLS_CERT: cert, LATCHKEY_TLS_KEY: key }).tls).toEqual({ certFile: cert, keyFile: key });
    const missingCert = configError({ LATCHKEY_TLS_CERT: join(dir, 'nope.pem'), LATCHKEY_TLS_KEY: key });
    expect(missingCert.message).toBe(`LATCHKEY_TLS_CERT: cannot read the file "${join(dir, 'nope.pem')}"`);
    expect(configError({ LATCHKEY_TLS_CERT: cert, LATCHKEY_TLS_KEY: dir + '/missing.key' }).variable).toBe('LATCHKEY_TLS_KEY');
    // Only one of the pair: that is reported first, whether or not the file exists.
    expect(configError({ LATCHKEY_TLS_CERT: cert }).variable).toBe('LATCHKEY_TLS_KEY');
  });

  it('normalises what it reads: whitespace, empty values, the issuer’s trailing slash and its path', () => {
    const config = loadConfig({ PORT: ' 8443 ', HOST: '', LATCHKEY_ISSUER: 'https://login.example.com/auth/', REDIS_URL: '  ', LATCHKEY_SECRET: '' });
    expect(config).toMatchObject({ port: 8443, host: '127.0.0.1', issuer: 'https://login.example.com/auth', redisUrl: undefined, secret: undefined });
    expect(loadConfig({ PORT: '0' }).issuer).toBe('http://localhost:0');
    expect(loadConfig({ DATABASE_URL: 'postgresql://db.internal/latchkey' }).database).toEqual({ kind: 'postgres', url: 'postgresql://db.internal/latchkey' });
    expect(loadConfig({ DATABASE_URL: 'sqlite:/var/lib/latchkey/db.sqlite' }).database).toEqual({ kind: 'sqlite', path: '/var/lib/latchkey/db.sqlite' });
    expect(loadConfig({ NODE_ENV: 'production', LATCHKEY_SECRET: 'x'.repeat(32) })).toMatchObject({ production: true, secret: 'x'.repeat(32) });
    expect(configError({ LATCHKEY_ISSUER: 'not a url' }).variable).toBe('LATCHKEY_ISSUER');
    expect(configError({ PORT: '-1' }).variable).toBe('PORT');
    expect(configError({ PORT: '80.5' }).variable).toBe('PORT');
    expect(configError({ DATABASE_URL: './data/latchkey.db' }).variable).toBe('DATABASE_URL');
  });
});

describe('the development secret', () => {
  it('is generated once with mode 0600 and read back unchanged afterwards', () => {
    const dir = join(tempDir(), 'nested', 'data');
    const secret = developmentSecret(dir);
    expect(secret).toMatch(/^[\w-]{43}$/);
    expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600);
    expect(developmentSecret(dir)).toBe(secret);
    expect(readFileSync(join(dir, 'secret'), 'utf8')).toBe(`${secret}\n`);
  });

  it('refuses an empty or truncated secret file instead of using it as key material', () => {
    const dir = tempDir();
    for (const content of ['', '\n', 'short-secret\n']) {
      writeFileSync(join(dir, 'secret'), content);
      expect(() => developmentSecret(dir)).toThrow(`${join(dir, 'secret')} does not hold a development secret (at least 32 characters): restore it, or set LATCHKEY_SECRET`);
    }
  });
});

describe('the latchkey CLI with an invalid setting', () => {
  it('exits before touching the database or the data folder', async () => {
    const dir = tempDir();
    const env = { DATABASE_URL: `sqlite:${join(dir, 'never.db')}`, LATCHKEY_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'silent' };
    const cases: [Record<string, string>, string][] = [
      [{ LATCHKEY_TLS_CERT: join(dir, 'cert.pem'), LATCHKEY_TLS_KEY: join(dir, 'key.pem') }, 'LATCHKEY_TLS_CERT: cannot read the file'],
      [{ HOST: 'not a host' }, 'HOST: expected an IP address or a host name'],
    ];
    const results = await Promise.all(cases.map(([extra]) => runCli(['serve'], { ...env, ...extra })));
    results.forEach((result, i) => {
      expect(result.code).toBe(2);
      expect(result.output).toContain(`latchkey: invalid configuration: ${cases[i]?.[1]}`);
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops with a clear message when the development secret file is unusable', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'secret'), '\n');
    const result = await runCli(['migrate'], { DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, LATCHKEY_DATA_DIR: dir });
    // migrate needs no secret; keys rotate does.
    expect(result.code).toBe(0);
    const rotate = await runCli(['keys', 'rotate'], { DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, LATCHKEY_DATA_DIR: dir, LOG_LEVEL: 'silent' });
    expect(rotate.code).toBe(1);
    expect(rotate.output).toContain(`latchkey: failed to start: ${join(dir, 'secret')} does not hold a development secret`);
  });
});
