import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';

/** pino's level numbers: error is 50, fatal 60. */
const ERROR_LEVEL = 50;

const form = (body: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body).toString(),
});
const json = (body: string, headers: Record<string, string> = {}): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('what a server logs for requests it refuses with a 4xx', () => {
  let server: TestServer;
  let fx: LoginFixture;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    // At debug level Fastify logs every request too, and its own error handler's refusals.
    server = await startTestServer({ dialect: 'sqlite', listen: true, env: { LOG_LEVEL: 'debug' }, logger: pino({ level: 'debug' }, destination) });
    fx = await provisionLogin(server);
  });
  afterAll(async () => server?.close());

  it('logs no error-level line and no stack trace, whatever the surface', async () => {
    const token = await server.token();
    const mgmt = { authorization: `Bearer ${token}` };
    const cases: [string, string, RequestInit, number][] = [
      ['login post without its transaction cookie', '/u/login?state=abc', form({ state: 'abc', username: fx.user.email, password: 'x' }), 400],
      ['login page without its transaction cookie', '/u/login?state=abc', {}, 400],
      ['signup post without its transaction cookie', '/u/signup?state=abc', form({ state: 'abc', email: 'a@example.com', password: 'x' }), 400],
      ['identifier post without its transaction cookie', '/u/login/identifier?state=abc', form({ state: 'abc', username: fx.user.email }), 400],
      ['password post without its transaction cookie', '/u/login/password?state=abc', form({ state: 'abc', password: 'x' }), 400],
      ['one-time code post without its transaction cookie', '/u/login/passwordless-email-challenge?state=abc', form({ state: 'abc', code: '123456' }), 400],
      ['password reset request without its transaction cookie', `/u/reset-password/request/${fx.connection}?state=abc`, form({ state: 'abc', email: 'a@example.com' }), 400],
      ['password reset request at the earlier address without its transaction cookie', '/u/reset-password/request?state=abc', {}, 400],
      ['login form that names no transaction', '/u/login', form({ username: 'x' }), 400],
      ['login form that does not match the schema', '/u/login?state=abc', form({ state: 'abc', username: 'x', password: 'x'.repeat(2000) }), 400],
      ['upstream callback without its transaction cookie', '/login/callback?state=abc&code=xyz', {}, 400],
      ['token request with bad JSON', '/oauth/token', json('{"grant_type":'), 400],
      ['token request with an empty JSON body', '/oauth/token', json(''), 400],
      ['token request that is too large', '/oauth/token', json(JSON.stringify({ padding: 'x'.repeat(300_000) })), 413],
      ['token request that is not JSON or a form', '/oauth/token', { method: 'POST', headers: { 'content-type': 'text/xml' }, body: '<a/>' }, 415],
      ['unknown Authentication API route', '/no/such/route', {}, 404],
      ['browser library path that breaks its schema', '/js/latchkey/not-a-version/latchkey.min.js', {}, 400],
      ['Management API body with bad JSON', '/api/v2/users', json('{"email":', mgmt), 400],
      ['Management API body that breaks the schema', '/api/v2/users', json('{"connection":7}', mgmt), 400],
      ['Management API path parameter over the router limit', `/api/v2/users/${'a'.repeat(300)}`, { headers: mgmt }, 414],
      ['unknown Management API route', '/api/v2/no-such-route', { headers: mgmt }, 404],
      ['Management API without a token', '/api/v2/users', {}, 401],
    ];
    for (const [name, path, init, status] of cases) {
      const response = await fetch(`${server.url}${path}`, { redirect: 'manual', ...init });
      await response.arrayBuffer();
      expect(response.status, name).toBe(status);
    }
    // A failure after the answer was sent (a route going on with a reply it already sent) is logged a moment later.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const shown = (line: Record<string, unknown>) => `${String(line.msg)} (${JSON.stringify(line.err ?? line.res ?? '').slice(0, 200)})`;
    expect(lines.filter((line) => Number(line.level) >= ERROR_LEVEL).map(shown)).toEqual([]);
    expect(lines.filter((line) => JSON.stringify(line).includes('"stack"')).map(shown)).toEqual([]);
    // Every request was logged (debug level): the checks above looked at real output.
    expect(lines.filter((line) => line.msg === 'incoming request').length).toBeGreaterThanOrEqual(cases.length);
  });
});
