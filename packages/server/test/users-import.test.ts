import { pbkdf2Sync, randomBytes, createHash } from 'node:crypto';
import type { ManagementClient } from 'auth0';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USERS_IMPORT_MAX_BYTES } from '../src/services/jobs/jobs.js';
import { CookieClient, inputValue } from './support/browser-client.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { startServerForSdk, type SdkServer } from './support/official-sdk.js';
import { DIALECTS } from './support/services.js';
import { until } from './support/eventually.js';

const BCRYPT_PASSWORD = 'old bcrypt password 1';
const PBKDF2_PASSWORD = 'old pbkdf2 password 2';
const SHA_PASSWORD = 'old salted sha256 password 3';

/** A PHC string of PBKDF2-SHA256 as another system would have stored it (unpadded base64). */
function pbkdf2Phc(password: string): string {
  const salt = randomBytes(16);
  const derived = pbkdf2Sync(password, salt, 10_000, 32, 'sha256');
  const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');
  return `$pbkdf2-sha256$i=10000,l=32$${b64(salt)}$${b64(derived)}`;
}

function usersFile(suffix: string) {
  const salt = 'pepper-salt';
  return [
    { email: `bcrypt-${suffix}@example.com`, email_verified: true, name: 'Bea Crypt', user_metadata: { plan: 'gold' }, app_metadata: { roles: ['a'] }, password_hash: bcrypt.hashSync(BCRYPT_PASSWORD, 10) },
    { email: `pbkdf2-${suffix}@example.com`, given_name: 'Pat', custom_password_hash: { algorithm: 'pbkdf2', hash: { value: pbkdf2Phc(PBKDF2_PASSWORD), encoding: 'utf8' } } },
    {
      email: `sha-${suffix}@example.com`,
      blocked: false,
      custom_password_hash: {
        algorithm: 'sha256',
        hash: { value: createHash('sha256').update(salt + SHA_PASSWORD).digest('hex'), encoding: 'hex' },
        salt: { value: salt, encoding: 'utf8', position: 'prefix' },
      },
    },
    { email: 'not an address', password_hash: bcrypt.hashSync('x', 4) },
    { email: `badhash-${suffix}@example.com`, custom_password_hash: { algorithm: 'crc32', hash: { value: 'abc' } } },
  ];
}

/**
 * Bulk import of users with other systems' password hashes, on both dialects over a real socket: the official
 * Management SDK (npm auth0, v7) uploads the file and polls the job; the imported users log in with their old
 * passwords on the hosted page and with the password-realm grant, and their hashes become ours (argon2id); bad
 * records fail alone and are listed; a file past the limit is refused; a job accepted by a node that stops is
 * finished by another node on the same database.
 */
describe.each(DIALECTS)('users import jobs (%s)', (dialect) => {
  let sdk: SdkServer;
  let server: TestServer;
  let fx: LoginFixture;
  let management: ManagementClient;
  let connectionId: string;
  const suffix = Math.random().toString(36).slice(2, 8);

  beforeAll(async () => {
    sdk = await startServerForSdk({ dialect, jobs: { pollMs: 100 } });
    ({ server, management } = sdk);
    fx = await provisionLogin(server);
    const connection = await server.registry.storage.connections.findOne(server.registry.tenantId, { name: fx.connection });
    connectionId = connection?.id ?? '';
  }, 60_000);
  afterAll(async () => sdk?.close());

  const storedHash = async (email: string) =>
    (await server.registry.storage.users.findOne(server.registry.tenantId, { connection: fx.connection, email }))?.columns.password_hash ?? '';

  async function pageLogin(email: string, password: string): Promise<number> {
    const browser = new CookieClient(server.url);
    const query = new URLSearchParams({ client_id: fx.web.clientId, response_type: 'code', redirect_uri: fx.web.callback, scope: 'openid email', state: 'st' });
    const start = await browser.get(`/authorize?${query}`);
    const page = new URL(start.headers.get('location') ?? '', server.url);
    const html = await (await browser.get(page.pathname + page.search)).text();
    const answer = await browser.postForm(page.pathname + page.search, { state: inputValue(html, 'state') ?? '', _csrf: inputValue(html, '_csrf') ?? '', username: email, password });
    return answer.status;
  }

  async function passwordRealm(email: string, password: string): Promise<number> {
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'http://auth0.com/oauth/grant-type/password-realm',
        client_id: fx.web.clientId,
        client_secret: fx.web.clientSecret,
        username: email,
        password,
        realm: fx.connection,
      }),
    });
    return response.status;
  }

  it('imports bcrypt, pbkdf2 and salted sha256 hashes; the users log in with their old passwords and get argon2id', async () => {
    const file = Buffer.from(JSON.stringify(usersFile(suffix)));
    const created = await management.jobs.usersImports.create({ users: new Blob([file], { type: 'application/json' }), connection_id: connectionId, upsert: false, external_id: 'ext-1' });
    expect(created.type).toBe('users_import');
    expect(created.connection_id).toBe(connectionId);
    const id = String(created.id);
    const job = await until(async () => {
      const current = await management.jobs.get(id);
      expect(current.status).toBe('completed');
      return current as unknown as { summary: Record<string, number>; external_id: string };
    });
    expect(job.summary).toEqual({ inserted: 3, updated: 0, failed: 2, total: 5 });
    expect(job.external_id).toBe('ext-1');

    const errors = (await management.jobs.errors.get(id)) as unknown as { user: Record<string, unknown>; errors: { code: string; path: string }[] }[];
    expect(errors.map((entry) => [entry.user.email, entry.errors[0]?.code, entry.errors[0]?.path])).toEqual([
      ['not an address', 'INVALID_FORMAT', 'email'],
      [`badhash-${suffix}@example.com`, 'INVALID_FORMAT', 'custom_password_hash'],
    ]);
    // The records are echoed without their hashes.
    expect(errors.map((entry) => Object.keys(entry.user).sort())).toEqual([['email'], ['email']]);

    const bcryptUser = `bcrypt-${suffix}@example.com`;
    const pbkdf2User = `pbkdf2-${suffix}@example.com`;
    const shaUser = `sha-${suffix}@example.com`;
    const imported = await server.registry.storage.users.findOne(server.registry.tenantId, { connection: fx.connection, email: bcryptUser });
    expect(imported?.data).toMatchObject({ email_verified: true, name: 'Bea Crypt', user_metadata: { plan: 'gold' }, app_metadata: { roles: ['a'] }, blocked: false });

    expect(await storedHash(bcryptUser)).toMatch(/^\$2[ab]\$10\$/);
    expect(await pageLogin(bcryptUser, 'a wrong password')).not.toBe(302);
    expect(await pageLogin(bcryptUser, BCRYPT_PASSWORD)).toBe(302);
    expect(await storedHash(bcryptUser)).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    // Still the same password, now checked against our hash.
    expect(await passwordRealm(bcryptUser, BCRYPT_PASSWORD)).toBe(200);

    expect(await storedHash(pbkdf2User)).toMatch(/^\$pbkdf2-sha256\$/);
    expect(await passwordRealm(pbkdf2User, 'wrong')).toBe(403);
    expect(await passwordRealm(pbkdf2User, PBKDF2_PASSWORD)).toBe(200);
    expect(await storedHash(pbkdf2User)).toMatch(/^\$argon2id\$/);
    expect(await pageLogin(pbkdf2User, PBKDF2_PASSWORD)).toBe(302);

    expect(await passwordRealm(shaUser, SHA_PASSWORD)).toBe(200);
    expect(await storedHash(shaUser)).toMatch(/^\$argon2id\$/);
  }, 60_000);

  it('updates existing users with upsert, and refuses them without', async () => {
    const email = `bcrypt-${suffix}@example.com`;
    const record = [{ email, name: 'Renamed', password_hash: bcrypt.hashSync('newer password 9', 4) }];
    const upload = async (upsert: boolean) => {
      const created = await management.jobs.usersImports.create({ users: new Blob([JSON.stringify(record)]), connection_id: connectionId, upsert });
      return until(async () => {
        const current = (await management.jobs.get(String(created.id))) as unknown as { status: string; summary: Record<string, number> };
        expect(current.status).toBe('completed');
        return current.summary;
      });
    };
    expect(await upload(false)).toEqual({ inserted: 0, updated: 0, failed: 1, total: 1 });
    expect(await upload(true)).toEqual({ inserted: 0, updated: 1, failed: 0, total: 1 });
    expect(await passwordRealm(email, 'newer password 9')).toBe(200);
  }, 60_000);

  it('imports a file naming one e-mail twice: the first record goes in, the second fails alone', async () => {
    const record = (n: string, name: string) => ({ email: `twice-${n}-${suffix}@example.com`, name });
    const file = [record('a', 'First'), record('b', 'Other'), record('a', 'Second'), record('c', 'Third')];
    const created = await management.jobs.usersImports.create({ users: new Blob([JSON.stringify(file)]), connection_id: connectionId });
    const id = String(created.id);
    const job = await until(async () => {
      const current = (await management.jobs.get(id)) as unknown as { status: string; summary: Record<string, number> };
      expect(current.status).toBe('completed');
      return current;
    });
    expect(job.summary).toEqual({ inserted: 3, updated: 0, failed: 1, total: 4 });
    const errors = (await management.jobs.errors.get(id)) as unknown as { user: { name: string }; errors: { code: string }[] }[];
    expect(errors.map((entry) => [entry.user.name, entry.errors[0]?.code])).toEqual([['Second', 'DUPLICATED_USER']]);
    const stored = await server.registry.storage.users.findOne(server.registry.tenantId, { connection: fx.connection, email: `twice-a-${suffix}@example.com` });
    expect(stored?.data.name).toBe('First');
  }, 60_000);

  it('refuses a file past the limit (413), a file that is not a JSON array (failed job), and an unknown job (404)', async () => {
    const token = await server.token();
    const post = async (content: string) => {
      const form = new FormData();
      form.append('users', new Blob([content]), 'users.json');
      form.append('connection_id', connectionId);
      return fetch(`${server.url}/api/v2/jobs/users-imports`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    };
    const tooLarge = await post(`[${'{"email":"a@example.com"},'.repeat(USERS_IMPORT_MAX_BYTES / 20)}]`);
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ statusCode: 413, errorCode: 'payload_too_large' });

    const notArray = await post('{"email":"a@example.com"}');
    expect(notArray.status).toBe(201);
    const { id } = (await notArray.json()) as { id: string };
    const get = async (path: string) => {
      const response = await fetch(`${server.url}/api/v2${path}`, { headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, body: (await response.json()) as unknown };
    };
    await until(async () => expect((await get(`/jobs/${id}`)).body).toMatchObject({ status: 'failed' }));
    expect((await get(`/jobs/${id}/errors`)).body).toEqual([{ user: null, errors: [{ code: 'INVALID_FORMAT', message: 'The users file must be a JSON array.', path: '' }] }]);

    expect((await get('/jobs/job_doesnotexist00')).status).toBe(404);
  }, 60_000);

  it('finishes a job on a second node after the node that accepted it stopped', async () => {
    const first = await startTestServer({ dialect, jobs: { enabled: false } });
    try {
      const fixture = await provisionLogin(first);
      const connection = await first.registry.storage.connections.findOne(first.registry.tenantId, { name: fixture.connection });
      const id = first.registry.jobs.newJobId();
      await first.registry.jobs.storeUpload(id, (async function* () {
        yield Buffer.from(JSON.stringify([{ email: 'late@example.com', password_hash: bcrypt.hashSync('late password 7', 4) }]));
      })());
      await first.registry.jobs.createUsersImport(id, { connectionId: connection?.id ?? '', upsert: false, sendCompletionEmail: false });
      expect((await first.registry.jobs.get(id)).status).toBe('pending');
      await first.stop();

      const second = await startTestServer({ dialect, shareWith: first, jobs: { pollMs: 100 } });
      try {
        const done = await until(async () => {
          const job = await second.registry.jobs.get(id);
          expect(job.status).toBe('completed');
          return job;
        });
        expect(done).toMatchObject({ type: 'users_import', summary: { inserted: 1, updated: 0, failed: 0, total: 1 } });
        const user = await second.registry.storage.users.findOne(second.registry.tenantId, { connection: fixture.connection, email: 'late@example.com' });
        expect(user?.columns.password_hash).toMatch(/^\$2[ab]\$/);
      } finally {
        await second.stop();
      }
    } finally {
      await first.close();
    }
  }, 60_000);
});
