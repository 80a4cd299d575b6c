import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { handleId, newHandle } from '../src/crypto/handles.js';
import { hashPassword, passwordHashingLoad } from '../src/services/passwords.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture, passwordRealmForm } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';

describe.each(DIALECTS)('token endpoint: password-realm, password and refresh_token grants (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
  });
  afterAll(async () => server?.close());

  async function token(body: Record<string, string>) {
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body).toString(),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }

  const realmLogin = (extra: Record<string, string> = {}) =>
    token(passwordRealmForm(fx, { scope: 'openid profile email offline_access read:things', audience: fx.api.identifier, ...extra }));

  it('logs a user in with password-realm: RS256 access and ID tokens that verify, and a refresh token', async () => {
    const { status, body } = await realmLogin();
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'openid profile email offline_access read:things' });
    const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
    const access = await jwtVerify(body.access_token ?? '', jwks, { issuer: `${server.registry.issuer}/`, audience: fx.api.identifier });
    expect(access.payload).toMatchObject({ sub: fx.user.userId, azp: fx.web.clientId, scope: 'openid profile email offline_access read:things' });
    expect(access.payload.aud).toEqual([fx.api.identifier, `${server.registry.issuer}/userinfo`]);
    const id = await jwtVerify(body.id_token ?? '', jwks, { issuer: `${server.registry.issuer}/`, audience: fx.web.clientId });
    expect(id.payload).toMatchObject({ sub: fx.user.userId, email: fx.user.email, email_verified: true, name: 'Test User', azp: fx.web.clientId });
    expect(typeof id.payload.auth_time).toBe('number');
    expect(id.payload.at_hash).toBeTypeOf('string');
    // `<chain id>.<secret>` (oauth/refresh-tokens.ts)
    expect(body.refresh_token).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
  });

  it('drops scopes the API does not define, and gives no refresh token without offline_access', async () => {
    const { body } = await realmLogin({ scope: 'openid read:things delete:everything' });
    expect(body.scope).toBe('openid read:things');
    expect(body.refresh_token).toBeUndefined();
  });

  it('answers wrong credentials alike for a wrong password and an unknown user (403), and refuses unknown realms', async () => {
    const wrong = await realmLogin({ password: 'not the password' });
    const unknown = await realmLogin({ username: 'nobody@example.com' });
    expect(wrong).toEqual({ status: 403, body: { error: 'invalid_grant', error_description: 'Wrong email or password.' } });
    expect(unknown).toEqual(wrong);
    expect((await realmLogin({ realm: 'no-such-connection' })).body.error).toBe('invalid_request');
    expect((await realmLogin({ realm: '' })).body.error).toBe('invalid_request');
  });

  it('refuses a blocked user (401) and a client without the grant type', async () => {
    const api = managementApi(server);
    const blocked = await api('POST', '/users', { connection: fx.connection, email: `blocked-${dialect}@example.com`, password: fx.user.password, blocked: true });
    expect(blocked.status).toBe(201);
    const answer = await realmLogin({ username: `blocked-${dialect}@example.com` });
    expect(answer).toEqual({ status: 401, body: { error: 'unauthorized', error_description: 'user is blocked' } });
    const spa = await token({ grant_type: PASSWORD_REALM, client_id: fx.spa.clientId, username: fx.user.email, password: fx.user.password, realm: fx.connection });
    expect(spa.body.error).toBe('unauthorized_client');
  });

  it('accepts the plain password grant when the client has one database connection', async () => {
    const { status, body } = await token({
      grant_type: 'password',
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
      username: fx.user.email.toUpperCase(),
      password: fx.user.password,
      scope: 'openid',
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(decodeJwt(body.id_token ?? '').sub).toBe(fx.user.userId);
  });

  it("logs the plain password grant in against the tenant's default directory when one is set", async () => {
    const api = managementApi(server);
    const second = `directory-${dialect}`;
    const connection = await api('POST', '/connections', { name: second, strategy: 'auth0', enabled_clients: [fx.web.clientId] });
    expect(connection.status).toBe(201);
    const created = await api('POST', '/users', { connection: second, email: `dd-${dialect}@example.com`, password: 'a default directory pass 7' });
    expect(created.status).toBe(201);
    const passwordGrant = (username: string, password: string) =>
      token({ grant_type: 'password', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, username, password, scope: 'openid' });
    try {
      const ambiguous = await passwordGrant(`dd-${dialect}@example.com`, 'a default directory pass 7');
      expect(ambiguous.status).toBe(400);
      expect(ambiguous.body.error_description).toContain('default_directory');

      expect((await api('PATCH', '/tenants/settings', { default_directory: second })).body).toMatchObject({ default_directory: second });
      const logged = await passwordGrant(`dd-${dialect}@example.com`, 'a default directory pass 7');
      expect(logged.status, JSON.stringify(logged.body)).toBe(200);
      expect(decodeJwt(logged.body.id_token ?? '').sub).toBe(created.body.user_id);
      // The other connection's user is not looked for there.
      expect((await passwordGrant(fx.user.email, fx.user.password)).status).toBe(403);

      await api('PATCH', '/tenants/settings', { default_directory: 'no-such-connection' });
      expect((await passwordGrant(fx.user.email, fx.user.password)).body).toEqual({
        error: 'invalid_request',
        error_description: "The tenant's default directory 'no-such-connection' is not a database connection.",
      });

      // Unset again (an empty string): the client has two connections, so it must name one.
      expect((await api('PATCH', '/tenants/settings', { default_directory: '' })).status).toBe(200);
      expect((await passwordGrant(`dd-${dialect}@example.com`, 'a default directory pass 7')).status).toBe(400);
    } finally {
      await api('PATCH', '/tenants/settings', { default_directory: '' });
      await api('PATCH', `/connections/${String(connection.body.id)}`, { enabled_clients: [] });
    }
  });

  it('rotates refresh tokens; a reused one revokes the whole family', async () => {
    const first = (await realmLogin()).body;
    const refresh = (refreshToken: string, extra: Record<string, string> = {}) =>
      token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: refreshToken, ...extra });
    const second = await refresh(first.refresh_token ?? '');
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.refresh_token).toBeDefined();
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(second.body.id_token ?? '').sub).toBe(fx.user.userId);
    expect(decodeJwt(second.body.access_token ?? '').aud).toEqual([fx.api.identifier, `${server.registry.issuer}/userinfo`]);

    const reuse = await refresh(first.refresh_token ?? '');
    expect(reuse).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Unknown or invalid refresh token.' } });
    // The thief reused the old token: the token the legitimate client holds now is revoked too.
    expect((await refresh(second.body.refresh_token ?? '')).body.error).toBe('invalid_grant');
  });

  it('narrows the scope of one refresh without narrowing the grant, and refuses a wider scope', async () => {
    const first = (await realmLogin()).body;
    const narrow = await token({
      grant_type: 'refresh_token',
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
      refresh_token: first.refresh_token ?? '',
      scope: 'openid read:things',
    });
    expect(narrow.status, JSON.stringify(narrow.body)).toBe(200);
    expect(narrow.body.scope).toBe('openid read:things');
    const full = await token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: narrow.body.refresh_token ?? '' });
    expect(full.body.scope).toBe('openid profile email offline_access read:things');
    const wider = await token({
      grant_type: 'refresh_token',
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
      refresh_token: full.body.refresh_token ?? '',
      scope: 'openid write:things',
    });
    expect(wider.body.error).toBe('invalid_scope');
  });

  it("refuses another client's refresh token without spending it", async () => {
    const first = (await realmLogin()).body;
    const api = managementApi(server);
    const other = await api('POST', '/clients', { name: 'Other', app_type: 'regular_web', grant_types: ['refresh_token'] });
    const stolen = await token({
      grant_type: 'refresh_token',
      client_id: String(other.body.client_id),
      client_secret: String(other.body.client_secret),
      refresh_token: first.refresh_token ?? '',
    });
    expect(stolen.body.error).toBe('invalid_grant');
    const owner = await token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: first.refresh_token ?? '' });
    expect(owner.status).toBe(200);
  });

  it('stores refresh tokens only as hashes', async () => {
    const { body } = await realmLogin();
    const [chainId = '', secret = ''] = (body.refresh_token ?? '').split('.');
    const rows = await server.registry.storage.artifacts.listLive(server.registry.tenantId, 'refresh_token', { subject: fx.user.userId }, new Date().toISOString());
    expect(rows.map((row) => row.id)).toContain(chainId);
    expect(secret).toHaveLength(43);
    expect(JSON.stringify(rows)).not.toContain(secret);
  });

  const refresh = (refreshToken: string, extra: Record<string, string> = {}) =>
    token({ grant_type: 'refresh_token', client_id: fx.web.clientId, client_secret: fx.web.clientSecret, refresh_token: refreshToken, ...extra });
  const refreshRows = async () =>
    Number(
      (
        await server.registry.storage.dialect.db
          .selectFrom('artifacts')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('tenant_id', '=', server.registry.tenantId)
          .where('kind', '=', 'refresh_token')
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('keeps one stored row per grant however often its token rotates, and moves its idle expiry on', async () => {
    let current = (await realmLogin()).body.refresh_token ?? '';
    const chainId = current.split('.')[0] ?? '';
    const before = await refreshRows();
    const idleExpiry = async () => (await server.registry.storage.artifacts.get<{ idle_expires_at?: string }>(server.registry.tenantId, 'refresh_token', chainId))?.data.idle_expires_at ?? '';
    const firstExpiry = await idleExpiry();
    expect(firstExpiry).not.toBe('');
    // ISO timestamps have millisecond precision: the rotations below must happen at a later millisecond.
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (let i = 0; i < 5; i += 1) {
      const next = await refresh(current);
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      expect(next.body.refresh_token?.startsWith(`${chainId}.`)).toBe(true);
      current = next.body.refresh_token ?? '';
    }
    expect(await refreshRows()).toBe(before);
    const row = await server.registry.storage.artifacts.get(server.registry.tenantId, 'refresh_token', chainId);
    expect(row?.consumedAt).toBeNull();
    expect((await idleExpiry()) > firstExpiry).toBe(true);
  });

  it('revokes the grant when its chain is presented with a secret that is not the current one', async () => {
    const first = (await realmLogin()).body.refresh_token ?? '';
    const [chainId = ''] = first.split('.');
    const forged = await refresh(`${chainId}.${'A'.repeat(43)}`);
    expect(forged).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Unknown or invalid refresh token.' } });
    expect((await refresh(first)).body.error).toBe('invalid_grant');
    // Malformed tokens are refused without touching anything.
    for (const bad of ['x', `${chainId}.`, `${chainId}.${'A'.repeat(43)}.x`, `${'!'.repeat(22)}.${'A'.repeat(43)}`]) {
      expect((await refresh(bad)).body.error).toBe('invalid_grant');
    }
  });

  it('leaves the token unspent when the request is refused before rotation (wider scope)', async () => {
    const first = (await realmLogin()).body.refresh_token ?? '';
    expect((await refresh(first, { scope: 'openid write:things' })).body.error).toBe('invalid_scope');
    expect((await refresh(first)).status).toBe(200);
  });

  it('lets exactly one of several simultaneous uses of a token succeed', async () => {
    const first = (await realmLogin()).body.refresh_token ?? '';
    const answers = await Promise.all([refresh(first), refresh(first), refresh(first)]);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.body.error === 'invalid_grant')).toHaveLength(2);
  });

  it('refuses a bare token of the retired one-row-per-token format, touching nothing, even with its row still stored', async () => {
    // Migration 0004-refresh-token-chains deleted these rows (storage-migration-refresh-token-chains.test.ts); one is
    // stored here anyway, to show that no code path redeems, spends or revokes by a bare token any more.
    const now = Date.now();
    const legacy = newHandle();
    const id = handleId(server.registry.handleKey, legacy);
    await server.registry.storage.artifacts.insert(server.registry.tenantId, 'refresh_token', {
      id,
      family: 'legacy-grant',
      subject: fx.user.userId,
      data: { client_id: fx.web.clientId, user_id: fx.user.userId, scopes: ['openid', 'offline_access'], audience: null, auth_time: Math.floor(now / 1000), sid: null },
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 86_400_000).toISOString(),
    });
    expect(await refresh(legacy)).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Unknown or invalid refresh token.' } });
    const revoked = await fetch(`${server.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: fx.web.clientId, client_secret: fx.web.clientSecret, token: legacy }),
    });
    expect(revoked.status).toBe(200);
    expect((await server.registry.storage.artifacts.get(server.registry.tenantId, 'refresh_token', id))?.consumedAt).toBeNull();
    expect(await server.registry.storage.grantRevocations.isRevoked(server.registry.tenantId, 'legacy-grant', new Date().toISOString())).toBe(false);
  });

  /**
   * Holds a password check in the server's argon2id queue while `meanwhile` runs. The queue is filled with real
   * hashes first (one per CPU at a time, in arrival order), `slow` is started, and once its hash is waiting behind
   * them `meanwhile` runs; it must finish before `slow` does, or the test would not test the race.
   */
  async function whilePasswordIsChecked<T>(slow: () => Promise<T>, meanwhile: () => Promise<void>): Promise<T> {
    let fillersLeft = 8 * availableParallelism();
    const fillers = Array.from({ length: fillersLeft }, () => hashPassword('queue filler').finally(() => (fillersLeft -= 1)));
    let slowDone = false;
    const slowAnswer = slow().finally(() => (slowDone = true));
    const load = () => passwordHashingLoad().running + passwordHashingLoad().waiting;
    while (load() <= fillersLeft) {
      if (fillersLeft === 0) throw new Error('the request never reached the password check');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await meanwhile();
    expect(slowDone, 'the concurrent change landed after the password check').toBe(false);
    await Promise.all(fillers);
    return slowAnswer;
  }

  it("a login keeps an administrator's change made while its password was checked, and counts itself", async () => {
    const api = managementApi(server, 'socket');
    const email = `race-meta-${dialect}@example.com`;
    const created = await api('POST', '/users', { connection: fx.connection, email, password: fx.user.password });
    expect(created.status).toBe(201);
    const userId = String(created.body.user_id);
    const login = await whilePasswordIsChecked(
      () => realmLogin({ username: email }),
      async () => {
        expect((await api('PATCH', `/users/${userId}`, { user_metadata: { plan: 'gold' } })).status).toBe(200);
      },
    );
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const stored = (await api('GET', `/users/${userId}`)).body;
    expect(stored).toMatchObject({ user_metadata: { plan: 'gold' }, logins_count: 1 });
  });

  it('a block that lands while the password is checked refuses the login', async () => {
    const api = managementApi(server, 'socket');
    const email = `race-block-${dialect}@example.com`;
    const created = await api('POST', '/users', { connection: fx.connection, email, password: fx.user.password });
    const userId = String(created.body.user_id);
    const login = await whilePasswordIsChecked(
      () => realmLogin({ username: email }),
      async () => {
        expect((await api('PATCH', `/users/${userId}`, { blocked: true })).status).toBe(200);
      },
    );
    expect(login).toEqual({ status: 401, body: { error: 'unauthorized', error_description: 'user is blocked' } });
    expect((await api('GET', `/users/${userId}`)).body).toMatchObject({ blocked: true, logins_count: 0 });
  });

  it('an update that sets a password keeps a change made while the new password was hashed', async () => {
    const api = managementApi(server, 'socket');
    const email = `race-update-${dialect}@example.com`;
    const created = await api('POST', '/users', { connection: fx.connection, email, password: fx.user.password });
    const userId = String(created.body.user_id);
    const newPassword = 'a brand new passphrase 93';
    const update = await whilePasswordIsChecked(
      () => api('PATCH', `/users/${userId}`, { password: newPassword }),
      async () => {
        expect((await api('PATCH', `/users/${userId}`, { app_metadata: { tier: 2 } })).status).toBe(200);
      },
    );
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    expect(update.body).toMatchObject({ app_metadata: { tier: 2 } });
    expect((await api('GET', `/users/${userId}`)).body).toMatchObject({ app_metadata: { tier: 2 } });
    expect((await realmLogin({ username: email, password: newPassword })).status).toBe(200);
  });
});
