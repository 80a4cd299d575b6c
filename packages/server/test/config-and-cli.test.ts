import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config/load.js';
import { TEST_SECRET } from './support/harness.js';
import { freePort } from './support/ports.js';
import { runCli, startServeProcess, type Running } from './support/processes.js';
import { urlForLog } from '../src/log.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      issuer: 'http://localhost:3000',
      database: { kind: 'sqlite', path: './data/latchkey.db' },
      redisUrl: undefined,
      dataDir: './data',
      tenant: 'latchkey',
      managementRateLimit: { points: 50, durationSeconds: 1, burst: 100 },
      production: false,
      tls: undefined,
    });
    expect(loadConfig({ PORT: '8080' }).issuer).toBe('http://localhost:8080');
    expect(loadConfig({ LATCHKEY_ISSUER: 'https://id.example.com/' }).issuer).toBe('https://id.example.com');
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h:5432/db' }).database).toEqual({ kind: 'postgres', url: 'postgres://u@h:5432/db' });
    expect(loadConfig({ LATCHKEY_MGMT_RATE_LIMIT: '600/m' }).managementRateLimit).toEqual({ points: 600, durationSeconds: 60, burst: 600 });
  });

  const invalid: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ LATCHKEY_ISSUER: 'ftp://x' }, 'LATCHKEY_ISSUER'],
    [{ LATCHKEY_ISSUER: 'https://x/?a=b' }, 'LATCHKEY_ISSUER'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'sqlite:' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ LATCHKEY_SECRET: 'short' }, 'LATCHKEY_SECRET'],
    [{ NODE_ENV: 'production' }, 'LATCHKEY_SECRET'],
    [{ LATCHKEY_TLS_CERT: 'cert.pem' }, 'LATCHKEY_TLS_KEY'],
    [{ LATCHKEY_ADMIN_CLIENT_ID: 'x' }, 'LATCHKEY_ADMIN_CLIENT_SECRET'],
    [{ LATCHKEY_TENANT: 'Bad Name' }, 'LATCHKEY_TENANT'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ LATCHKEY_MGMT_RATE_LIMIT: 'fast' }, 'LATCHKEY_MGMT_RATE_LIMIT'],
    [{ LATCHKEY_MGMT_RATE_LIMIT: '50/s burst 10' }, 'LATCHKEY_MGMT_RATE_LIMIT'],
  ];
  it.each(invalid)('rejects %j naming %s', (env, variable) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as Error).message.startsWith(`${variable}:`)).toBe(true);
  });
});

describe('the latchkey CLI', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'latchkey-cli-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to start with an invalid setting, naming the variable', async () => {
    // Three independent processes, run side by side: each spends seconds loading the sources before it refuses.
    const [port, database, unknown] = await Promise.all([
      runCli(['serve'], { PORT: 'eighty' }),
      runCli(['serve'], { DATABASE_URL: 'oracle://db' }),
      runCli(['frobnicate'], {}),
    ]);
    expect(port.code).toBe(2);
    expect(port.output).toContain('invalid configuration: PORT:');
    expect(database.code).toBe(2);
    expect(database.output).toContain('DATABASE_URL');
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain('usage: latchkey');
  });

  it('migrate and keys rotate work on a database', async () => {
    const dir = tempDir();
    const env = { DATABASE_URL: `sqlite:${join(dir, 'cli.db')}`, LATCHKEY_DATA_DIR: dir, LATCHKEY_SECRET: TEST_SECRET };
    const migrate = await runCli(['migrate'], env);
    expect(migrate).toMatchObject({ code: 0 });
    expect(migrate.output).toContain('migrations applied');
    const first = await runCli(['keys', 'rotate'], env);
    expect(first.code).toBe(0);
    const second = await runCli(['keys', 'rotate'], env);
    const kid = (output: string) => /current key is now (\S+)/.exec(output)?.[1];
    expect(kid(first.output)).toBeTruthy();
    expect(kid(second.output)).not.toBe(kid(first.output));
  });

  it('on one CPU (pinned with taskset) answers concurrent token requests and password logins, each with its own verified answer', async () => {
    // One CPU: the server signs on its event loop, a loop turn's signatures together (src/crypto/rsa-signer.ts).
    const dir = tempDir();
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const env = { PORT: String(port), LATCHKEY_ISSUER: issuer, DATABASE_URL: `sqlite:${join(dir, 'one-cpu.db')}`, LATCHKEY_DATA_DIR: dir, LATCHKEY_SECRET: TEST_SECRET };
    const server = await startServeProcess({ ...env, LATCHKEY_ADMIN_CLIENT_ID: 'one-cpu-admin', LATCHKEY_ADMIN_CLIENT_SECRET: 'one-cpu-admin-secret-0123456789abcdefghij' }, 30_000, '0');
    try {
      const form = { grant_type: 'client_credentials', client_id: 'one-cpu-admin', client_secret: 'one-cpu-admin-secret-0123456789abcdefghij', audience: `${issuer}/api/v2/` };
      const answers = await Promise.all(
        Array.from({ length: 24 }, () => fetch(`${issuer}/oauth/token`, { method: 'POST', body: new URLSearchParams(form) }).then((response) => response.json())),
      );
      const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
      const ids = new Set<unknown>();
      for (const answer of answers as { access_token: string }[]) {
        const { payload } = await jwtVerify(answer.access_token, jwks, { issuer: `${issuer}/`, audience: form.audience, algorithms: ['RS256'] });
        ids.add(payload.jti);
      }
      expect(ids.size).toBe(24);

      // One CPU, one argon2id hash at a time (src/services/passwords.ts): concurrent password logins of several
      // users queue for it and each still gets its own answer.
      const admin = (answers[0] as { access_token: string }).access_token;
      const api = async (path: string, body: unknown) => {
        const response = await fetch(`${issuer}/api/v2${path}`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        expect(response.status).toBe(201);
        return (await response.json()) as Record<string, unknown>;
      };
      const client = await api('/clients', { name: 'One CPU app', app_type: 'regular_web', grant_types: ['http://auth0.com/oauth/grant-type/password-realm'] });
      await api('/connections', { name: 'one-cpu-users', strategy: 'auth0', enabled_clients: [client.client_id] });
      const emails = ['ada@example.com', 'grace@example.com', 'edsger@example.com'];
      const users = await Promise.all(emails.map((email) => api('/users', { connection: 'one-cpu-users', email, password: `pw of ${email} 9!` })));
      const logins = await Promise.all(
        emails.flatMap((email) => [`pw of ${email} 9!`, 'not the password']).map(async (password, i) => {
          const response = await fetch(`${issuer}/oauth/token`, {
            method: 'POST',
            body: new URLSearchParams({ grant_type: 'http://auth0.com/oauth/grant-type/password-realm', realm: 'one-cpu-users', username: emails[Math.floor(i / 2)] as string, password, client_id: String(client.client_id), client_secret: String(client.client_secret), scope: 'openid' }),
          });
          return { status: response.status, body: (await response.json()) as { id_token?: string; error?: string } };
        }),
      );
      for (const [i, login] of logins.entries()) {
        if (i % 2 === 1) {
          expect(login).toMatchObject({ status: 403, body: { error: 'invalid_grant' } });
          continue;
        }
        expect(login.status).toBe(200);
        const { payload } = await jwtVerify(String(login.body.id_token), jwks, { issuer: `${issuer}/`, audience: String(client.client_id) });
        expect(payload.sub).toBe(users[i / 2]?.user_id);
      }
    } finally {
      await server.stop();
    }
  });

  /**
   * A development server (no LATCHKEY_SECRET, no admin application in the environment), started twice on one data
   * folder: the first start generates the secret and the admin credentials, the second reuses them. Starting a
   * server process is the costly part of these tests, so the second one also runs at LOG_LEVEL=debug for the test
   * of what it logs.
   */
  describe('in development', () => {
    let dir: string;
    let port: number;
    let firstOutput: string;
    let second: Running;

    beforeAll(async () => {
      dir = tempDir();
      port = await freePort();
      const env = { PORT: String(port), DATABASE_URL: `sqlite:${join(dir, 'dev.db')}`, LATCHKEY_DATA_DIR: dir };
      const first = await startServeProcess(env);
      firstOutput = first.output();
      await first.stop();
      second = await startServeProcess({ ...env, LOG_LEVEL: 'debug' });
      // Two server processes start here, one after the other: on a loaded two-core machine that nears 30 s.
    }, 60_000);
    afterAll(async () => second?.stop());

    it('generates the development secret and admin credentials once (mode 0600) and reuses them', async () => {
      const credentialsFile = join(dir, 'admin-credentials.json');
      expect(firstOutput).toContain(credentialsFile);
      const credentials = JSON.parse(readFileSync(credentialsFile, 'utf8')) as { client_id: string; client_secret: string; audience: string };
      expect(statSync(credentialsFile).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600);
      expect(credentials.audience).toBe(`http://localhost:${port}/api/v2/`);

      const response = await fetch(`http://127.0.0.1:${port}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credentials.client_id, client_secret: credentials.client_secret, audience: credentials.audience }),
      });
      expect(response.status).toBe(200);
      expect(JSON.parse(readFileSync(credentialsFile, 'utf8'))).toEqual(credentials);
    });

    it('prints the console URL and writes the bootstrap administrator\u2019s credentials once (mode 0600)', async () => {
      const consoleFile = join(dir, 'console-credentials.json');
      expect(firstOutput).toContain(`Console: http://localhost:${port}/admin/  (first administrator: ${consoleFile})`);
      expect(statSync(consoleFile).mode & 0o777).toBe(0o600);
      const administrator = JSON.parse(readFileSync(consoleFile, 'utf8')) as { console: string; email: string; password: string };
      expect(administrator).toMatchObject({ console: `http://localhost:${port}/admin/`, email: 'admin@latchkey.local' });
      expect(administrator.password.length).toBeGreaterThanOrEqual(24);
      expect(second.output()).toContain(`first administrator: ${consoleFile}`);
    });

    it('logs requests at LOG_LEVEL=debug without the secrets their URLs and headers carry', async () => {
      const base = `http://127.0.0.1:${port}`;
      await (await fetch(`${base}/u/unblock?ticket=unblock-ticket-secret-1`)).arrayBuffer();
      await (await fetch(`${base}/passwordless/verify_redirect?verification_code=424242&connection=email&client_id=app-1`)).arrayBuffer();
      await (await fetch(`${base}/authorize?client_id=app-1&response_type=code&id_token_hint=eyJ.hint-secret.sig&state=state-secret-2`)).arrayBuffer();
      await (await fetch(`${base}/userinfo`, { headers: { authorization: 'Bearer bearer-secret-3', cookie: 'latchkey_session=cookie-secret-4' } })).arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const output = second.output();
      expect(output).toContain('"url":"/u/unblock?ticket=[redacted]"');
      expect(output).toContain('/passwordless/verify_redirect?verification_code=[redacted]&connection=email&client_id=app-1');
      expect(output).toContain('"url":"/userinfo"');
      for (const secret of ['unblock-ticket-secret-1', '424242', 'hint-secret', 'state-secret-2', 'bearer-secret-3', 'cookie-secret-4']) expect(output).not.toContain(secret);
    });
  });
});

describe('request URLs in logs', () => {
  it('keep the path and the descriptive parameters, and hide every other value', () => {
    expect(urlForLog('/oauth/token')).toBe('/oauth/token');
    expect(urlForLog('/login/callback?code=c0de&state=s')).toBe('/login/callback?code=[redacted]&state=[redacted]');
    expect(urlForLog('/authorize?client_id=a%20b&scope=openid+profile&nonce=n')).toBe('/authorize?client_id=a%20b&scope=openid%20profile&nonce=[redacted]');
    expect(urlForLog('/api/v2/users?per_page=5&q=email%3A%22x%40y%22')).toBe('/api/v2/users?per_page=5&q=[redacted]');
  });
});
