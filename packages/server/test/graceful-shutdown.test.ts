import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, TEST_SECRET } from './support/harness.js';
import { freePort } from './support/ports.js';
import { startServeProcess, type Running } from './support/processes.js';

/**
 * Issue 25 §4: SIGTERM stops accepting, answers every request already accepted, writes the tenant log's buffered
 * events, closes the registry and exits 0.
 * A real `latchkey serve` on one CPU, with password logins in flight (argon2id, one at a time for one account and
 * address: services/database-login.ts) when the signal arrives.
 */

const LOGINS = 24;

interface Outcome {
  status?: number;
  body?: Record<string, unknown>;
  /** A request that failed without an answer: its error's code (ECONNRESET would be an accepted request lost). */
  error?: string;
  at: number;
}

describe('SIGTERM with requests in flight', () => {
  let dir: string;
  let issuer: string;
  let server: Running;
  let exited: Promise<{ code: number | null; at: number }>;
  const connection = 'db-shutdown';
  const client = { id: '', secret: '' };
  const password = 'a password worth hashing 1234';

  const api = async (token: string, method: string, path: string, body: unknown) => {
    const response = await fetch(`${issuer}/api/v2${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status, await response.clone().text()).toBeLessThan(300);
    return (await response.json()) as Record<string, unknown>;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'latchkey-shutdown-'));
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    server = await startServeProcess(
      {
        PORT: String(port),
        LATCHKEY_ISSUER: issuer,
        DATABASE_URL: `sqlite:${join(dir, 'latchkey.db')}`,
        LATCHKEY_DATA_DIR: dir,
        LATCHKEY_SECRET: TEST_SECRET,
        LATCHKEY_ADMIN_CLIENT_ID: ADMIN_CLIENT_ID,
        LATCHKEY_ADMIN_CLIENT_SECRET: ADMIN_CLIENT_SECRET,
        LATCHKEY_DEMO: 'off',
        // Fastify logs each request it receives at debug: how the test knows every login was accepted.
        LOG_LEVEL: 'debug',
        // Long: a shutdown that waited for idle kept-alive connections would show.
        LATCHKEY_KEEP_ALIVE_TIMEOUT_SECONDS: '30',
      },
      60_000,
      '0',
    );
    exited = new Promise((resolve) => server.child.once('exit', (code) => resolve({ code, at: Date.now() })));
    const tokenResponse = await fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: `${issuer}/api/v2/` }),
    });
    const token = String(((await tokenResponse.json()) as { access_token: string }).access_token);
    const created = await api(token, 'POST', '/clients', { name: 'shutdown app', app_type: 'regular_web', grant_types: ['http://auth0.com/oauth/grant-type/password-realm'] });
    client.id = String(created.client_id);
    client.secret = String(created.client_secret);
    await api(token, 'POST', '/connections', { name: connection, strategy: 'auth0', enabled_clients: [client.id] });
    await api(token, 'POST', '/users', { connection, email: 'draining@example.com', password });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const acceptedLogins = () => server.output().split('\n').filter((line) => line.includes('"incoming request"') && line.includes('/oauth/token')).length;

  it('answers every accepted login, refuses new work, and exits 0', async () => {
    const before = acceptedLogins();
    const login = async (): Promise<Outcome> => {
      try {
        const response = await fetch(`${issuer}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
            client_id: client.id,
            client_secret: client.secret,
            username: 'draining@example.com',
            password,
            realm: connection,
          }),
        });
        const body = (await response.json()) as Record<string, unknown>;
        return { status: response.status, body, at: Date.now() };
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause;
        return { error: cause?.code ?? String(error), at: Date.now() };
      }
    };
    const logins = Array.from({ length: LOGINS }, login);
    // Every login has reached the server (it logged each), and they queue behind one another's argon2id.
    for (let waited = 0; acceptedLogins() - before < LOGINS; waited += 5) {
      if (waited > 20_000) throw new Error(`only ${acceptedLogins() - before} of ${LOGINS} logins reached the server:\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const signalAt = Date.now();
    server.child.kill('SIGTERM');

    // Once shutdown has begun, the node takes no new work: the listener refuses (or resets), or a kept-alive connection gets 503.
    for (let waited = 0; !server.output().includes('shutting down (SIGTERM)'); waited += 5) {
      if (waited > 10_000) throw new Error(`no shutdown line:\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // On a new connection (fetch could pick one of its idle ones, which the server is closing).
    const probe = await new Promise<{ status?: number; error?: string }>((resolve) => {
      get(`${issuer}/health/ready`, { agent: false }, (response) => {
        response.resume();
        resolve({ status: response.statusCode });
      }).once('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code }));
    });
    // A connection the kernel had queued when the listener closed is reset rather than refused: both are "no".
    if (probe.status === undefined) expect(['ECONNREFUSED', 'ECONNRESET']).toContain(probe.error);
    else expect(probe.status).toBe(503);

    const outcomes = await Promise.all(logins);
    expect(outcomes.filter((outcome) => outcome.error !== undefined)).toEqual([]);
    for (const outcome of outcomes) {
      expect(outcome.status, JSON.stringify(outcome.body)).toBe(200);
      expect(outcome.body).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer' });
    }
    // The signal came while logins were still running: the shutdown waited for them.
    expect(outcomes.filter((outcome) => outcome.at > signalAt).length).toBeGreaterThan(0);

    const { code, at } = await exited;
    expect(code, server.output()).toBe(0);
    expect(server.output()).toContain('Latchkey stopped');
    // Connections of answered requests were closed with their answers, not left to the 30 s keep-alive timeout.
    expect(at - Math.max(...outcomes.map((outcome) => outcome.at))).toBeLessThan(5000);

    // Nothing acknowledged is lost from the tenant log either: the logins answered after the signal recorded their
    // events while the node was shutting down, and the shutdown wrote the buffer before closing the database.
    // Read from the file the process left, with the process gone.
    expect(server.output()).not.toContain('are lost');
    const db = new BetterSqlite3(join(dir, 'latchkey.db'), { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare("select data from log_events where type = 'sepft' and client_id = ? order by log_id").all(client.id) as { data: string }[];
      expect(rows).toHaveLength(outcomes.length);
      for (const row of rows) expect(JSON.parse(row.data)).toMatchObject({ type: 'sepft', client_id: client.id, connection, user_name: 'draining@example.com' });
    } finally {
      db.close();
    }
  }, 60_000);
});
