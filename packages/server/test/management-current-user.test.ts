import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';
import { postJson } from './support/json-post.js';
import { provisionLogin, USER_PASSWORD, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';
import { DIALECTS } from './support/services.js';

const CURRENT_USER = 'read:current_user create:current_user_metadata update:current_user_metadata delete:current_user_metadata update:current_user_identities';

/**
 * The current-user Management API (what the browser library's `Management` calls): user tokens for the
 * Management API carry only the `current_user` scopes a client grant gives, and act only on their own user.
 */
describe.each(DIALECTS)('current-user Management API (%s)', (dialect) => {
  let server: TestServer;
  let fx: LoginFixture;
  let admin: ManagementApi;

  beforeAll(async () => {
    server = await startTestServer({ dialect, listen: true });
    fx = await provisionLogin(server);
    admin = managementApi(server, 'socket');
  });
  afterAll(async () => server?.close());

  /** A user's tokens by the password-realm grant (the fixture's confidential web application). */
  async function userTokens(username: string, scope: string, audience?: string) {
    const answer = await postJson(server, '/oauth/token', {
      grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
      client_id: fx.web.clientId,
      client_secret: fx.web.clientSecret,
      username,
      password: USER_PASSWORD,
      realm: fx.connection,
      scope,
      ...(audience ? { audience } : {}),
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.json as { access_token: string; id_token: string; scope: string };
  }
  const asUser = (token: string): ManagementApi => (method, path, body) => admin(method, path, body, token);

  it('a user token for the Management API gets no scope without a client grant, and never an administrator scope', async () => {
    const none = await userTokens(fx.user.email, `openid ${CURRENT_USER} read:users`, server.audience);
    expect(none.scope).toBe('openid');
    expect((await asUser(none.access_token)('GET', `/users/${fx.user.userId}`)).status).toBe(403);

    const grant = await admin('POST', '/client-grants', { client_id: fx.web.clientId, audience: server.audience, scope: [...CURRENT_USER.split(' '), 'read:users'] });
    expect(grant.status).toBe(201);
    const granted = await userTokens(fx.user.email, `openid ${CURRENT_USER} read:users`, server.audience);
    expect(granted.scope.split(' ').sort()).toEqual(['openid', ...CURRENT_USER.split(' ')].sort());
    expect(decodeJwt(granted.access_token)).toMatchObject({ sub: fx.user.userId, azp: fx.web.clientId });
    const list = await asUser(granted.access_token)('GET', '/users');
    expect(list).toMatchObject({ status: 403, body: { errorCode: 'insufficient_scope' } });
  });

  it('reads only its own user, with a raw or encoded |', async () => {
    const { access_token: token } = await userTokens(fx.user.email, `openid ${CURRENT_USER}`, server.audience);
    const me = asUser(token);
    expect(await me('GET', `/users/${fx.user.userId}`)).toMatchObject({ status: 200, body: { user_id: fx.user.userId, email: fx.user.email } });
    expect(await me('GET', `/users/${encodeURIComponent(fx.user.userId)}`)).toMatchObject({ status: 200, body: { user_id: fx.user.userId } });
    const other = await admin('POST', '/users', { connection: fx.connection, email: `other-${dialect}@example.com`, password: USER_PASSWORD });
    expect(await me('GET', `/users/${String(other.body.user_id)}`)).toEqual({
      status: 403,
      body: { statusCode: 403, error: 'Forbidden', message: 'User to be acted on does not match subject in bearer token.', errorCode: 'subject_mismatch' },
    });
    expect((await me('PATCH', `/users/${String(other.body.user_id)}`, { user_metadata: { a: 1 } })).status).toBe(403);
  });

  it('merges user_metadata one level, null deletes a key, and nothing else may change', async () => {
    const { access_token: token } = await userTokens(fx.user.email, `openid ${CURRENT_USER}`, server.audience);
    const me = asUser(token);
    const path = `/users/${fx.user.userId}`;
    expect((await me('PATCH', path, { user_metadata: { theme: 'dark', nested: { a: 1 }, keep: true } })).body.user_metadata).toEqual({ theme: 'dark', nested: { a: 1 }, keep: true });
    expect((await me('PATCH', path, { user_metadata: { theme: null, nested: { b: 2 } } })).body.user_metadata).toEqual({ nested: { b: 2 }, keep: true });
    const refused = await me('PATCH', path, { name: 'Mallory', user_metadata: { x: 1 } });
    expect(refused).toMatchObject({ status: 403, body: { errorCode: 'insufficient_scope' } });
    const after = await admin('GET', path);
    expect(after.body).toMatchObject({ name: 'Test User', user_metadata: { nested: { b: 2 }, keep: true } });

    // A token that may only add keys cannot remove or change one.
    const { access_token: createOnly } = await userTokens(fx.user.email, 'openid create:current_user_metadata', server.audience);
    expect((await asUser(createOnly)('PATCH', path, { user_metadata: { added: 1 } })).status).toBe(200);
    expect(await asUser(createOnly)('PATCH', path, { user_metadata: { keep: null } })).toMatchObject({ status: 403, body: { errorCode: 'insufficient_scope' } });
    expect(await asUser(createOnly)('PATCH', path, { user_metadata: { added: 2 } })).toMatchObject({ status: 403 });
    expect((await admin('GET', path)).body.user_metadata).toEqual({ nested: { b: 2 }, keep: true, added: 1 });
  });

  it('links a secondary account by its ID token, logs it in as the primary, and unlinks it', async () => {
    const secondaryEmail = `secondary-${dialect}@example.com`;
    const created = await admin('POST', '/users', { connection: fx.connection, email: secondaryEmail, password: USER_PASSWORD, name: 'Second' });
    const secondaryId = String(created.body.user_id);
    const primary = await userTokens(fx.user.email, `openid ${CURRENT_USER}`, server.audience);
    const me = asUser(primary.access_token);
    const path = `/users/${encodeURIComponent(fx.user.userId)}/identities`;

    // An access token is not an ID token for the caller's application: its audience is the API.
    expect(await me('POST', path, { link_with: primary.access_token })).toMatchObject({ status: 400, body: { errorCode: 'invalid_secondary_token' } });
    expect(await me('POST', path, { provider: 'auth0', user_id: secondaryId.split('|')[1] })).toMatchObject({ status: 403 });

    const secondary = await userTokens(secondaryEmail, 'openid');
    const linked = await me('POST', path, { link_with: secondary.id_token });
    expect(linked.status).toBe(201);
    expect(linked.body).toEqual([
      { connection: fx.connection, provider: 'auth0', user_id: fx.user.userId.split('|')[1], isSocial: false },
      expect.objectContaining({ connection: fx.connection, provider: 'auth0', user_id: secondaryId.split('|')[1], profileData: expect.objectContaining({ email: secondaryEmail }) }),
    ]);
    expect(await me('POST', path, { link_with: secondary.id_token })).toMatchObject({ status: 409, body: { errorCode: 'identity_already_linked' } });
    expect((await admin('GET', `/users/${secondaryId}`)).status).toBe(404);
    expect(decodeJwt((await userTokens(secondaryEmail, 'openid')).id_token).sub).toBe(fx.user.userId);
    // Lists count users, not linked accounts: the secondary is out of pages, totals and users-by-email.
    const listed = async () => {
      const answer = (await admin('GET', `/users?include_totals=true&per_page=100&connection=${fx.connection}`)).body;
      return { total: Number(answer.total), ids: (answer.users as unknown as { user_id: string }[]).map((user) => user.user_id) };
    };
    const whileLinked = await listed();
    expect(whileLinked.ids).not.toContain(secondaryId);
    expect(whileLinked.ids).toContain(fx.user.userId);
    expect(whileLinked.total).toBe(whileLinked.ids.length);
    expect((await admin('GET', `/users-by-email?email=${encodeURIComponent(secondaryEmail)}`)).body).toEqual([]);

    const unlinked = await me('DELETE', `${path}/auth0/${secondaryId.split('|')[1]}`);
    expect(unlinked).toMatchObject({ status: 200, body: [{ user_id: fx.user.userId.split('|')[1] }] });
    expect(decodeJwt((await userTokens(secondaryEmail, 'openid')).id_token).sub).toBe(secondaryId);
    const afterUnlink = await listed();
    expect(afterUnlink.ids).toContain(secondaryId);
    expect(afterUnlink.total).toBe(whileLinked.total + 1);
    expect((await admin('GET', `/users-by-email?email=${encodeURIComponent(secondaryEmail)}`)).body).toHaveLength(1);
    expect(await me('DELETE', `${path}/auth0/${secondaryId.split('|')[1]}`)).toMatchObject({ status: 404, body: { errorCode: 'inexistent_identity' } });
  });
});
