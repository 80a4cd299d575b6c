/**
 * The floor servers of `npm run bench` (bench/run.ts, user flows): the least a server on Latchkey's stack does for
 * the two flows the issue-3 aims judge, so that "what does the aim leave for everything else?" has a measured
 * answer. Each is Fastify 5 with a JSON schema on its form, Latchkey's own RS256 signer (crypto/rsa-signer.ts,
 * which batches the signatures of one event-loop turn on one CPU) and password check (services/passwords.ts),
 * and better-sqlite3 with Latchkey's pragmas. None authenticates clients, checks redirect URIs, limits rates,
 * keeps users or sessions, or builds real claims: these are lower bounds, not alternatives.
 *   floor-sign      POST /oauth/token answers one RS256 ID token (and the refresh token it was sent).
 *   floor-rotation  the same, after reading the presented refresh token's row by its chain id, comparing its
 *                   secret's hash and swapping in a new secret (one SELECT, one UPDATE with an optimistic
 *                   generation check), as a rotation must.
 *   floor-login     GET /authorize (a cookie and a redirect), GET /login (a form with a CSRF field), POST /login
 *                   (an argon2id check at Latchkey's cost, a code row inserted), and the code exchanged at
 *                   POST /oauth/token (the row deleted, one RS256 ID token).
 * POST /seed starts a refresh chain (floor-sign and floor-rotation).
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import formbody from '@fastify/formbody';
import Fastify from 'fastify';
import { signRs256 } from '../packages/server/src/crypto/rsa-signer.js';
import { hashPassword, verifyPassword } from '../packages/server/src/services/passwords.js';

export type FloorKind = 'floor-sign' | 'floor-rotation' | 'floor-login';
export const FLOOR_PASSWORD = 'correct horse battery staple 42';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

function database() {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-floor-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const db = new Database(join(dir, 'floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`create table chains (id text primary key, secret_hash text not null, generation integer not null, expires_at text not null, data text not null);
    create index chains_expiry on chains (expires_at);
    create table codes (id text primary key, expires_at text not null, data text not null);`);
  return db;
}

export async function startFloor(kind: FloorKind, host: string, port: number): Promise<void> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const header = b64({ alg: 'RS256', typ: 'JWT', kid: 'floor' });
  const issuer = `http://${host}:${port}/`;
  const idToken = async (aud: string) => {
    const iat = Math.floor(Date.now() / 1000);
    const input = `${header}.${b64({ iss: issuer, sub: 'auth0|floor', aud, iat, exp: iat + 36_000, auth_time: iat, sid: 'floor' })}`;
    return `${input}.${(await signRs256(Buffer.from(input), privateKey)).toString('base64url')}`;
  };
  const db = database();
  const chain = {
    insert: db.prepare('insert into chains (id, secret_hash, generation, expires_at, data) values (?, ?, 0, ?, ?)'),
    read: db.prepare<[string], { secret_hash: string; generation: number; expires_at: string; data: string }>('select secret_hash, generation, expires_at, data from chains where id = ?'),
    swap: db.prepare('update chains set secret_hash = ?, generation = generation + 1, expires_at = ? where id = ? and generation = ?'),
  };
  const code = {
    insert: db.prepare('insert into codes (id, expires_at, data) values (?, ?, ?)'),
    spend: db.prepare<[string], { data: string }>('delete from codes where id = ? returning data'),
  };
  const expiry = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
  const newChainToken = (id: string) => {
    const secret = randomBytes(32).toString('base64url');
    return { token: `${id}.${secret}`, hash: sha256(secret) };
  };
  const passwordHash = kind === 'floor-login' ? await hashPassword(FLOOR_PASSWORD) : '';

  const app = Fastify({ logger: false });
  await app.register(formbody);
  app.post('/seed', async () => {
    const id = randomBytes(16).toString('base64url');
    const { token, hash } = newChainToken(id);
    chain.insert.run(id, hash, expiry(86_400), JSON.stringify({ client_id: 'floor', user_id: 'auth0|floor', scopes: ['openid', 'offline_access'] }));
    return { refresh_token: token };
  });
  const tokenForm = {
    type: 'object',
    required: ['grant_type', 'client_id'],
    properties: { grant_type: { enum: ['refresh_token', 'authorization_code'] }, client_id: { type: 'string' }, refresh_token: { type: 'string' }, code: { type: 'string' } },
  } as const;
  app.post<{ Body: { grant_type: string; client_id: string; refresh_token?: string; code?: string } }>('/oauth/token', { schema: { body: tokenForm } }, async (request, reply) => {
    const form = request.body;
    if (form.grant_type === 'authorization_code') {
      const spent = code.spend.get(sha256(form.code ?? ''));
      if (!spent) return reply.code(400).send({ error: 'invalid_grant' });
      return { id_token: await idToken(form.client_id), token_type: 'Bearer', expires_in: 86_400 };
    }
    let refreshToken = form.refresh_token ?? '';
    if (kind === 'floor-rotation') {
      const [id = '', secret = ''] = refreshToken.split('.');
      const row = chain.read.get(id);
      if (!row || row.secret_hash !== sha256(secret) || row.expires_at <= new Date().toISOString()) return reply.code(400).send({ error: 'invalid_grant' });
      JSON.parse(row.data);
      const next = newChainToken(id);
      if (chain.swap.run(next.hash, expiry(86_400), id, row.generation).changes !== 1) return reply.code(400).send({ error: 'invalid_grant' });
      refreshToken = next.token;
    }
    return { id_token: await idToken(form.client_id), refresh_token: refreshToken, token_type: 'Bearer', expires_in: 86_400 };
  });
  app.get('/authorize', async (_request, reply) =>
    reply.header('set-cookie', `floor_tx=${randomBytes(32).toString('base64url')}; Path=/; HttpOnly; SameSite=Lax`).redirect('/login?state=floor'),
  );
  app.get('/login', async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .send(`<!doctype html><title>Log in</title><form method="post"><input type="hidden" name="state" value="floor"><input name="username"><input name="password" type="password"><button>Continue</button></form>`),
  );
  const loginForm = { type: 'object', required: ['username', 'password'], properties: { username: { type: 'string' }, password: { type: 'string' }, state: { type: 'string' } } } as const;
  app.post<{ Body: { username: string; password: string } }>('/login', { schema: { body: loginForm } }, async (request, reply) => {
    if (!(await verifyPassword(request.body.password, passwordHash))) return reply.code(400).send('wrong password');
    const issued = randomBytes(32).toString('base64url');
    code.insert.run(sha256(issued), expiry(60), JSON.stringify({ user_id: 'auth0|floor', username: request.body.username }));
    return reply.redirect(`https://app.floor.example/callback?code=${issued}&state=floor`);
  });
  await app.listen({ host, port });
}
