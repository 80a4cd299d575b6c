/**
 * The answering methods of the Actions `api` on the real engine: api.cache (with the host's ActionCacheStore between
 * executions, the platform's limits, and forged commands) and api.redirect.encodeToken / validateToken (the
 * platform's redirect examples unmodified, tokens checked and made by an independent JWT library, and forged,
 * expired, misdirected tokens refused with the platform's errors).
 */
import { decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ACTION_CACHE_LIMITS, ActionCacheStore } from '../src/services/actions/action-cache.js';
import { ACTION_HANDLERS, isActionHandlerName } from '../src/services/actions/handlers.js';
import type { ActionLogin, ExecuteOptions } from '../src/services/actions/runtime.js';
import { claimsOf, commandsOf, runtimeFactory, version } from './support/actions-runtime.js';

const runtime = runtimeFactory();
const actions = runtime();

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const MINUTE = 60_000;

/** Runs `body` as a post-login handler (an async function body whose value is JSON); answers its value. */
async function evaluate(body: string, options: ExecuteOptions = {}, event: object = {}): Promise<unknown> {
  const code = `exports.onExecutePostLogin = async (event, api) => { const value = await (async () => { ${body} })(); api.idToken.setCustomClaim('value', value === undefined ? null : value); };`;
  return claimsOf(await actions.execute(version('answers', code), 'onExecutePostLogin', event, options)).value;
}

describe('api.cache', () => {
  it('is on every trigger\'s api', async () => {
    const handlers = Object.keys(ACTION_HANDLERS).filter(isActionHandlerName);
    const code = handlers.map((name) => `exports.${name} = async (event, api) => { console.log([typeof api.cache.get, typeof api.cache.set, typeof api.cache.delete].join()); };`).join('\n');
    const v = version('cache-everywhere', code);
    for (const handler of handlers) {
      const result = await actions.execute(v, handler, {});
      expect(result.logs.lines, handler).toEqual([{ level: 'log', message: 'function,function,function' }]);
    }
  });

  it('answers within the execution and keeps values between executions through the host store, until they expire', async () => {
    let clock = NOW;
    const store = new ActionCacheStore({ now: () => clock });
    const v = version('cache-between', `
      exports.onExecutePostLogin = async (event, api) => {
        const before = api.cache.get('token');
        if (event.set) {
          const written = api.cache.set('token', event.set, { ttl: 5 * 60 * 1000 });
          api.idToken.setCustomClaim('written', written);
          api.idToken.setCustomClaim('readBack', api.cache.get('token'));
        }
        if (event.remove) api.idToken.setCustomClaim('deleted', api.cache.delete('token'));
        api.idToken.setCustomClaim('before', before === undefined ? 'none' : before);
      };`);
    const run = async (event: object) => {
      const result = await actions.execute(v, 'onExecutePostLogin', event, { cache: store.entries('cache-between'), now: clock });
      return store.apply('cache-between', commandsOf(result));
    };
    const written = await run({ set: 'abc' });
    const record = { value: 'abc', expires_at: NOW + 5 * MINUTE };
    expect(written).toEqual([
      { op: 'idToken.setCustomClaim', args: ['written', { type: 'success', record }] },
      { op: 'idToken.setCustomClaim', args: ['readBack', record] },
      { op: 'idToken.setCustomClaim', args: ['before', 'none'] },
    ]);
    expect(store.entries('cache-between')).toEqual({ token: record });

    clock = NOW + 4 * MINUTE;
    expect(await run({})).toEqual([{ op: 'idToken.setCustomClaim', args: ['before', record] }]);
    clock = NOW + 5 * MINUTE;
    expect(await run({})).toEqual([{ op: 'idToken.setCustomClaim', args: ['before', 'none'] }]);

    await run({ set: 'again' });
    expect(await run({ remove: true })).toEqual([
      { op: 'idToken.setCustomClaim', args: ['deleted', { type: 'success' }] },
      { op: 'idToken.setCustomClaim', args: ['before', { value: 'again', expires_at: clock + 5 * MINUTE }] },
    ]);
    expect(store.entries('cache-between')).toEqual({});
    expect(store.entries('another-action')).toEqual({});
  });

  it('applies the platform\'s lifetimes: 15 minutes by default, the earlier of ttl and expires_at, at most 24 hours', async () => {
    const answered = await evaluate(
      `return [
        api.cache.set('default', 'v'),
        api.cache.set('ttl', 'v', { ttl: 1000 }),
        api.cache.set('absolute', 'v', { expires_at: event.now + 2000 }),
        api.cache.set('both', 'v', { ttl: 5000, expires_at: event.now + 3000 }),
        api.cache.set('capped', 'v', { ttl: 48 * 3600 * 1000 }),
        api.cache.set('past', 'v', { expires_at: event.now - 1 }),
        api.cache.set('zero', 'v', { ttl: 0 }),
        api.cache.set('nan', 'v', { ttl: 'soon' }),
      ].map((result) => result.type === 'success' ? result.record.expires_at - event.now : result.code);`,
      { now: NOW },
      { now: NOW },
    );
    expect(answered).toEqual([ACTION_CACHE_LIMITS.defaultTtlMs, 1000, 2000, 3000, ACTION_CACHE_LIMITS.maxTtlMs, 'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS']);
  });

  it('refuses what is over the platform\'s limits: key and value sizes in bytes, 20 entries, 8 KB in all, strings only', async () => {
    const answered = await evaluate(`
      const code = (result) => result.type === 'success' ? 'ok' : result.code;
      const sizes = [
        code(api.cache.set('k'.repeat(64), 'v')), code(api.cache.set('é'.repeat(33), 'v')),
        code(api.cache.set('big', 'x'.repeat(4096))), code(api.cache.set('big', '€'.repeat(1366))),
        code(api.cache.set('', 'v')), code(api.cache.set(42, 'v')), code(api.cache.set('object', { a: 1 })),
        code(api.cache.delete(7)),
      ];
      api.cache.delete('k'.repeat(64));
      api.cache.delete('big');
      const entries = [];
      for (let i = 0; i < 21; i += 1) entries.push(code(api.cache.set('entry-' + i, 'v')));
      const overwrite = code(api.cache.set('entry-0', 'replaced'));
      for (let i = 0; i < 20; i += 1) api.cache.delete('entry-' + i);
      const total = [code(api.cache.set('a', 'x'.repeat(4000))), code(api.cache.set('b', 'x'.repeat(4000))), code(api.cache.set('c', 'x'.repeat(200)))];
      return { sizes, entries: entries.slice(18), overwrite, total };`);
    expect(answered).toEqual({
      sizes: ['ok', 'KEY_TOO_LARGE', 'ok', 'VALUE_TOO_LARGE', 'INVALID_KEY', 'INVALID_KEY', 'INVALID_VALUE', 'INVALID_KEY'],
      entries: ['ok', 'ok', 'TOO_MANY_ENTRIES'],
      overwrite: 'ok',
      total: ['ok', 'ok', 'CACHE_FULL'],
    });
  });

  it('records its changes as commands the host store checks again, and bounds the actions it keeps', async () => {
    let clock = NOW;
    const store = new ActionCacheStore({ now: () => clock, maxActions: 2 });
    // Commands as only a subverted prelude would record them: the store keeps nothing of them.
    const rest = store.apply('forged', [
      { op: 'cache.set', args: ['big', 'x'.repeat(5000), NOW + MINUTE] },
      { op: 'cache.set', args: ['forever', 'v', NOW + 48 * 60 * MINUTE] },
      { op: 'cache.set', args: [{ key: 1 }, 'v', NOW + MINUTE] },
      { op: 'cache.set', args: ['number', 7, NOW + MINUTE] },
      { op: 'cache.delete', args: [{}] },
      { op: 'access.deny', args: ['kept for the trigger'] },
    ]);
    expect(rest).toEqual([{ op: 'access.deny', args: ['kept for the trigger'] }]);
    expect(store.entries('forged')).toEqual({});

    for (const action of ['one', 'two', 'three']) store.apply(action, [{ op: 'cache.set', args: ['k', action, NOW + MINUTE] }]);
    expect([store.entries('one'), store.entries('two'), store.entries('three')]).toEqual([{}, { k: { value: 'two', expires_at: NOW + MINUTE } }, { k: { value: 'three', expires_at: NOW + MINUTE } }]);
    clock = NOW + MINUTE;
    expect(store.entries('two')).toEqual({});
  });

  it('hands the tenant copies: changing a record it got changes nothing', async () => {
    const answered = await evaluate(
      `const got = api.cache.get('k'); got.value = 'changed'; const written = api.cache.set('j', 'v'); written.record.value = 'changed too';
       return [api.cache.get('k').value, api.cache.get('j').value];`,
      { now: NOW, cache: { k: { value: 'original', expires_at: NOW + MINUTE } } },
    );
    expect(answered).toEqual(['original', 'v']);
  });
});

describe('api.redirect tokens', () => {
  const SECRET = 'a-shared-secret-of-the-action-0123456789';
  const key = new TextEncoder().encode(SECRET);
  const LOGIN: ActionLogin = { domain: 'login.example.com', userId: 'auth0|6650f0c2a1b2', state: 'hKFo2SBaWnhWQ' };
  const event = {
    user: { user_id: LOGIN.userId, name: 'Ada Lovelace', email: 'ada@example.com' },
    request: { ip: '203.0.113.7', hostname: LOGIN.domain, query: {}, body: {} },
    secrets: { REDIRECT_SECRET: SECRET },
  };

  /** The platform's redirect example (passing signed data to the redirect URL and back), unmodified. */
  const PLATFORM_EXAMPLE = `/**
 * Shows how to redirect the user to a specific URL as part of the login flow,
 * passing extra parameters with a signed JWT, and then how to handle signed
 * data sent back during continuation of the login.
 */
exports.onExecutePostLogin = async (event, api) => {
  // The purpose of this token is only as a way to pass some information to the
  // redirect URL. While you could do this with query parameters, using a signed
  // JWT ensures that your app can verify the data hasn't been tampered with. In
  // your app, take the JWT and verify it using the same REDIRECT_SECRET used to
  // sign it. The algorithm used is HS256.
  const jwt = api.redirect.encodeToken({
    secret: event.secrets.REDIRECT_SECRET,
    expiresInSeconds: 60,
    payload: {
      ip: event.request.ip,
      name: event.user.name,
    },
  });

  api.redirect.sendUserTo("https://example.com/sandwich-preferences", {
    // Query parameters sent to the URL (excluding the \`state\` parameter which
    // is automatically added by Auth0).
    query: { session_token: jwt, theme: "spiffy" },
  });
};

exports.onContinuePostLogin = async (event, api) => {
  // To pass signed information back from the redirect URL, you can pass a JWT
  // in the query parameters. The JWT is built by your app, and must contain a
  // \`state\` claim identical to the one sent in the continue URL as well as a
  // \`sub\` claim that matches the event's user ID.
  const payload = api.redirect.validateToken({
    secret: event.secrets.REDIRECT_SECRET,
    tokenParameterName: "some_token",
  });

  api.user.setUserMetadata("preferredSandwich", payload.sandwich);
};
`;

  /** What the external site sends back to /continue: a token it signs itself. */
  const siteToken = (claims: Record<string, unknown>, options: { secret?: Uint8Array; iat?: number; exp?: number } = {}) => {
    const iat = options.iat ?? Math.floor(NOW / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(iat)
      .setExpirationTime(options.exp ?? iat + 60)
      .sign(options.secret ?? key);
  };
  const continueEvent = (where: 'query' | 'body', name: string, token: string) => ({ ...event, request: { ...event.request, [where]: { state: LOGIN.state, [name]: token } } });

  it('runs the platform\'s example both ways: a token the site can verify, and the site\'s answer read back', async () => {
    const v = version('redirect-example', PLATFORM_EXAMPLE);
    const out = commandsOf(await actions.execute(v, 'onExecutePostLogin', event, { login: LOGIN, now: NOW }));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ op: 'redirect.sendUserTo', args: ['https://example.com/sandwich-preferences', { query: { theme: 'spiffy' } }] });
    const jwt = (out[0]?.args[1] as { query: { session_token: string } }).query.session_token;
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const { payload } = await jwtVerify(jwt, key, { currentDate: new Date(NOW), issuer: LOGIN.domain, subject: LOGIN.userId });
    const iat = Math.floor(NOW / 1000);
    expect(payload).toEqual({ iss: LOGIN.domain, sub: LOGIN.userId, state: LOGIN.state, ip: '203.0.113.7', name: 'Ada Lovelace', iat, exp: iat + 60 });

    // The site answers by POST (as the platform recommends) or in the query, with a token of its own.
    const answer = await siteToken({ iss: 'https://example.com', sub: LOGIN.userId, state: LOGIN.state, sandwich: 'reuben' });
    for (const where of ['body', 'query'] as const) {
      const back = await actions.execute(v, 'onContinuePostLogin', continueEvent(where, 'some_token', answer), { login: LOGIN, now: NOW + 30_000 });
      expect(commandsOf(back), where).toEqual([{ op: 'user.setUserMetadata', args: ['preferredSandwich', 'reuben'] }]);
    }
  });

  it('makes tokens that expire after 900 seconds by default, whose payload may set iss and sub but never iat and exp', async () => {
    const token = (await evaluate(
      `return api.redirect.encodeToken({ secret: event.secrets.REDIRECT_SECRET, payload: { iss: 'https://' + event.request.hostname + '/', other: { nested: [1, 'two'] }, exp: 1, iat: 1 } });`,
      { login: LOGIN, now: NOW },
      event,
    )) as string;
    const { payload } = await jwtVerify(token, key, { currentDate: new Date(NOW) });
    const iat = Math.floor(NOW / 1000);
    expect(payload).toEqual({ iss: `https://${LOGIN.domain}/`, sub: LOGIN.userId, state: LOGIN.state, other: { nested: [1, 'two'] }, iat, exp: iat + 900 });

    const refusals = await evaluate(`
      const attempt = (options) => { try { api.redirect.encodeToken(options); return 'made'; } catch (error) { return error.name + ': ' + error.message; } };
      return [attempt(undefined), attempt({ payload: {} }), attempt({ secret: 's', expiresInSeconds: -5 }), attempt({ secret: 's', payload: 'text' }), attempt({ secret: 's', payload: { big: 'x'.repeat(300000) } })];`);
    expect(refusals).toEqual([
      'TypeError: api.redirect.encodeToken: the options must be an object',
      'TypeError: api.redirect.encodeToken: options.secret must be a non-empty string',
      'TypeError: api.redirect.encodeToken: options.expiresInSeconds must be a positive number of seconds',
      'TypeError: api.redirect.encodeToken: options.payload must be an object',
      'RangeError: The session token is larger than 262144 characters',
    ]);
  });

  describe('validateToken refuses', () => {
    const validating = version(
      'validating',
      `exports.onContinuePostLogin = async (event, api) => {
        const payload = api.redirect.validateToken({ secret: event.secrets.REDIRECT_SECRET, tokenParameterName: event.parameter });
        api.idToken.setCustomClaim('payload', payload);
      };
      exports.onExecutePostLogin = async (event, api) => { api.redirect.validateToken({ secret: event.secrets.REDIRECT_SECRET }); };`,
    );
    const validate = async (token: string | undefined, options: { login?: ActionLogin; now?: number; parameter?: string; where?: 'query' | 'body' } = {}) => {
      const request = token === undefined ? event.request : continueEvent(options.where ?? 'query', 'session_token', token).request;
      return actions.execute(validating, 'onContinuePostLogin', { ...event, request, ...(options.parameter ? { parameter: options.parameter } : {}) }, { login: options.login ?? LOGIN, now: options.now ?? NOW });
    };
    const refusedWith = (message: string) => ({ ok: false, error: { kind: 'thrown', name: 'Error', message } });
    const good = { iss: LOGIN.domain, sub: LOGIN.userId, state: LOGIN.state };

    it('nothing that is right: a good token from the query under the default name passes', async () => {
      const token = await siteToken({ ...good, favorite_color: 'teal' });
      expect(claimsOf(await validate(token)).payload).toMatchObject({ ...good, favorite_color: 'teal' });
    });

    it('a token signed with another secret, or altered after signing', async () => {
      expect(await validate(await siteToken(good, { secret: new TextEncoder().encode('another secret') }))).toMatchObject(refusedWith('The session token is invalid: Invalid signature.'));
      const [header, , signature] = (await siteToken(good)).split('.');
      const altered = Buffer.from(JSON.stringify({ ...good, sub: 'auth0|someone-else', iat: 1, exp: 9_999_999_999 })).toString('base64url');
      expect(await validate(`${header}.${altered}.${signature}`)).toMatchObject(refusedWith('The session token is invalid: Invalid signature.'));
    });

    it('an unsigned token (alg none), another algorithm, or no token at all', async () => {
      const claims = Buffer.from(JSON.stringify({ ...good, iat: 1, exp: 9_999_999_999 })).toString('base64url');
      const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${claims}.`;
      expect(await validate(none)).toMatchObject(refusedWith('The session token is invalid: Unsupported algorithm (only HS256 is accepted).'));
      const hs512 = await new SignJWT(good).setProtectedHeader({ alg: 'HS512' }).setIssuedAt(Math.floor(NOW / 1000)).setExpirationTime('1m').sign(new Uint8Array(64));
      expect(await validate(hs512)).toMatchObject(refusedWith('The session token is invalid: Unsupported algorithm (only HS256 is accepted).'));
      expect(await validate('not-a-token')).toMatchObject(refusedWith('The session token is invalid: Malformed token.'));
      expect(await validate(undefined)).toMatchObject(refusedWith('The session token is missing: the request has no session_token parameter'));
      expect(await validate(await siteToken(good), { parameter: 'my_token' })).toMatchObject(refusedWith('The session token is missing: the request has no my_token parameter'));
    });

    it('an expired token, and one without the standard claims', async () => {
      const iat = Math.floor(NOW / 1000) - 120;
      expect(await validate(await siteToken(good, { iat, exp: iat + 60 }))).toMatchObject(refusedWith('The session token is invalid: The token has expired.'));
      expect(await validate(await siteToken(good), { now: NOW + 61_000 })).toMatchObject(refusedWith('The session token is invalid: The token has expired.'));
      for (const missing of ['iss', 'sub', 'state'] as const) {
        const { [missing]: _, ...rest } = good;
        expect(await validate(await siteToken(rest)), missing).toMatchObject(refusedWith('The session token is invalid: Missing or invalid standard claims.'));
      }
    });

    it('a token of another login (its state) or another user (its sub)', async () => {
      expect(await validate(await siteToken({ ...good, state: 'the-state-of-another-login' }))).toMatchObject(
        refusedWith('The session token is invalid: State in the token does not match the /continue state.'),
      );
      expect(await validate(await siteToken({ ...good, sub: 'auth0|another-user' }))).toMatchObject(refusedWith('The session token is invalid: Subject in the token does not match the user.'));
      // The same token, presented to another login of the same user.
      expect(await validate(await siteToken(good), { login: { ...LOGIN, state: 'a-later-login' } })).toMatchObject(
        refusedWith('The session token is invalid: State in the token does not match the /continue state.'),
      );
    });

    it('outside onContinuePostLogin, and a token the handler slipped into the event after the request came', async () => {
      const token = await siteToken(good);
      const outside = await actions.execute(validating, 'onExecutePostLogin', continueEvent('query', 'session_token', token), { login: LOGIN, now: NOW });
      expect(outside).toMatchObject(refusedWith('api.redirect.validateToken can only be used in onContinuePostLogin, when the login resumes after the redirect'));
      const slipped = await actions.execute(
        version('slips-a-token', `exports.onContinuePostLogin = async (event, api) => { event.request.query.session_token = event.token; api.redirect.validateToken({ secret: event.secrets.REDIRECT_SECRET }); };`),
        'onContinuePostLogin',
        { ...event, token },
        { login: LOGIN, now: NOW },
      );
      expect(slipped).toMatchObject(refusedWith('The session token is missing: the request has no session_token parameter'));
    });
  });
});
