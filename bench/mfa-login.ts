/**
 * Issue 29's aim for multi-factor logins, in `npm run bench` (bench/run.ts), or alone with
 * `node --import tsx bench/mfa-login.ts` (`npm run bench:mfa`): a login with TOTP costs one password hash and one
 * TOTP check, so its rate stays ≥ 0.9 of a password-only login's. One Latchkey on SQLite, pinned to the server CPU
 * like the other single-process figures, loaded like the authorization-code logins (bench/user-flows.ts): a fixed
 * number of concurrent loops, each completion checked, the two kinds in alternate rounds on the same server.
 *
 * - password-only: the password-realm grant answers tokens (the tenant's MFA policy empty).
 * - TOTP: the same grant answers `403 mfa_required` with an mfa_token (the policy `all-applications`, switched on
 *   before each of its rounds through the Management API), then the mfa-otp grant with that token and a fresh code
 *   answers tokens whose ID token's `amr` has `mfa`. That grant never hashes the password again.
 *
 * A TOTP code is good once per 30-second step per authenticator, so every user has an authenticator of its own,
 * created through the Management API (`POST /api/v2/users/{id}/authentication-methods`, type `totp`, a known
 * `totp_secret`) after the users were bulk-imported with an argon2id hash of Latchkey's own cost (a login checks it
 * exactly as a signed-up user's; importing spares the bench one hash per user). Each TOTP login takes the next user
 * whose authenticator has not been used in the current step and is not in flight: every login is a fresh (user,
 * step) pair. The run fails, rather than wait, if every user has spent the step (BENCH_MFA_USERS raises the count).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hashPassword } from '../packages/server/src/services/passwords.js';
import { call, type LoadSettings } from './measure.js';
import { BENCH_ADMIN, freePort, latchkeyEnv, onCleanup, pinSelf, planCpus, startTarget, stopEverything } from './processes.js';
import { compareLoopRates, provisionUserFlows, USER_PASSWORD } from './user-flows.js';

export const MFA_LOGIN_AIM = 0.9;
const PASSWORD_REALM = 'http://auth0.com/oauth/grant-type/password-realm';
const MFA_OTP = 'http://auth0.com/oauth/grant-type/mfa-otp';
const STEP_MS = 30_000;
const SCOPE = 'openid profile email';

export interface MfaLoginFigures {
  /** Users imported, each with its own authenticator. */
  users: number;
  loops: number;
  /** Completions per second. */
  passwordOnly: number;
  totp: number;
  ratio: number;
  met: boolean;
  /** Measured completions (warm-ups excluded). */
  measured: { passwordOnly: number; totp: number };
  /**
   * The server process's CPU time (all its threads, the hashes on the libuv pool included) per measured login: what a
   * TOTP login costs beyond a password-only one, whatever else the machine runs.
   */
  cpuMsPerLogin: { passwordOnly: number; totp: number };
}

/** RFC 4648 Base32 without padding: the form `totp_secret` takes. */
function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  return (bits.match(/.{1,5}/g) ?? []).map((chunk) => alphabet[parseInt(chunk.padEnd(5, '0'), 2)]).join('');
}

/** RFC 6238 (HMAC-SHA-1, six digits) for one 30-second step, computed here, apart from the server's library. */
function totpCode(key: Buffer, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const digest = createHmac('sha1', key).update(counter).digest();
  const offset = (digest[digest.length - 1] ?? 0) & 0x0f;
  return String((digest.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

const currentStep = () => Math.floor(Date.now() / STEP_MS);

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU milliseconds a process has used so far, user and system, all threads (/proc/<pid>/stat). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

function payloadOf(jwt: unknown): Record<string, unknown> {
  const part = typeof jwt === 'string' ? jwt.split('.')[1] : undefined;
  if (part === undefined) throw new Error(`not a JWT: ${String(jwt)}`);
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** Waits for a bulk-import job and answers how many users it inserted. */
async function importedUsers(baseUrl: string, token: string, jobId: string): Promise<number> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const job = await call(`${baseUrl}/api/v2/jobs/${jobId}`, { method: 'GET', token });
    if (job.status === 'completed') return Number((job.summary as { inserted?: number } | undefined)?.inserted ?? 0);
    if (job.status === 'failed') throw new Error(`users import: ${JSON.stringify(job)}`);
    if (Date.now() > deadline) throw new Error(`users import ${jobId} not completed within 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs `jobs` with at most `width` in flight. */
async function inParallel<T>(items: readonly T[], width: number, job: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const item = items[next] as T;
        next += 1;
        await job(item);
      }
    }),
  );
}

/** Runs the comparison on a Latchkey of its own (in `dataDir`) pinned to `affinity`. */
export async function mfaLoginFigures(options: { settings: LoadSettings; affinity: string | undefined; dataDir: string }): Promise<MfaLoginFigures> {
  const { settings, affinity } = options;
  const loops = settings.connections;
  // At most about 100 logins a second on one CPU: enough users that the TOTP logins of the whole comparison fit
  // in one step, wherever its boundaries fall.
  const userCount = Number(process.env.BENCH_MFA_USERS ?? Math.max(loops, Math.ceil(100 * (settings.warmupSeconds + settings.seconds))));
  const port = await freePort();
  const server = await startTarget('latchkey', {
    port,
    workers: 1,
    ...(affinity !== undefined ? { cpus: affinity } : {}),
    env: latchkeyEnv({ databaseUrl: `sqlite:${join(options.dataDir, `mfa-${port}.db`)}`, dataDir: options.dataDir, port }),
  });
  try {
    const tokenUrl = `${server.url}/oauth/token`;
    const token = String(
      (await call(tokenUrl, { method: 'POST', form: { grant_type: 'client_credentials', client_id: BENCH_ADMIN.id, client_secret: BENCH_ADMIN.secret, audience: `${server.url}/api/v2/` } }))
        .access_token,
    );
    const management = (method: string, path: string, json?: unknown) => call(`${server.url}/api/v2${path}`, { method, ...(json !== undefined ? { json } : {}), token });

    const setup = await provisionUserFlows(server.url, token);
    await management('PATCH', `/clients/${setup.clientId}`, { grant_types: ['authorization_code', 'refresh_token', PASSWORD_REALM, MFA_OTP] });
    await management('PUT', '/guardian/factors/otp', { enabled: true });
    const [connection] = (await management('GET', `/connections?name=${setup.connection}`)) as unknown as { id: string }[];

    // The users, in one import: an argon2id hash of Latchkey's own cost (a login that checks it keeps it: it is current).
    const passwordHash = await hashPassword(USER_PASSWORD);
    const users = Array.from({ length: userCount }, (_, n) => ({ n, userId: `auth0|mfa-bench-${n}`, email: `mfa-bench-${n}@example.com`, key: randomBytes(20) }));
    const form = new FormData();
    const records = users.map((user) => ({ user_id: `mfa-bench-${user.n}`, email: user.email, email_verified: true, custom_password_hash: { algorithm: 'argon2', hash: { value: passwordHash } } }));
    form.append('users', new Blob([JSON.stringify(records)], { type: 'application/json' }), 'users.json');
    form.append('connection_id', String(connection?.id));
    form.append('send_completion_email', 'false');
    const upload = await fetch(`${server.url}/api/v2/jobs/users-imports`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    const job = (await upload.json()) as Record<string, unknown>;
    if (upload.status !== 201) throw new Error(`users import: ${upload.status} ${JSON.stringify(job)}`);
    const inserted = await importedUsers(server.url, token, String(job.id));
    if (inserted !== userCount) throw new Error(`users import: ${inserted} users inserted of ${userCount}`);
    await inParallel(users, 8, async (user) => {
      const created = await management('POST', `/users/${encodeURIComponent(user.userId)}/authentication-methods`, { type: 'totp', totp_secret: base32(user.key) });
      if (created.type !== 'totp') throw new Error(`authentication method of ${user.userId}: ${JSON.stringify(created)}`);
    });

    const clientForm = { client_id: setup.clientId, client_secret: setup.clientSecret };
    const passwordGrant = (email: string) =>
      fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...clientForm, grant_type: PASSWORD_REALM, username: email, password: USER_PASSWORD, realm: setup.connection, scope: SCOPE }).toString(),
      });

    // One account per loop, as the authorization-code logins: attempts on one account from one address run one at a time.
    const passwordOnly = async (loop: number) => {
      const user = users[loop % users.length];
      const answer = await passwordGrant(user?.email ?? '');
      const body = (await answer.json()) as Record<string, unknown>;
      if (answer.status !== 200 || typeof body.access_token !== 'string') throw new Error(`password-only login: ${answer.status} ${JSON.stringify(body)}`);
      const amr = payloadOf(body.id_token).amr;
      if (Array.isArray(amr) && amr.includes('mfa')) throw new Error('password-only login: amr has mfa');
    };

    // The step each user's authenticator last answered, and the users in flight.
    const lastStep = new Map<number, number>();
    const inFlight = new Set<number>();
    let cursor = 0;
    const freshUser = () => {
      const step = currentStep();
      for (let tried = 0; tried < users.length; tried += 1) {
        const n = (cursor + tried) % users.length;
        if (!inFlight.has(n) && (lastStep.get(n) ?? -1) < step) {
          cursor = n + 1;
          inFlight.add(n);
          return users[n] as (typeof users)[number];
        }
      }
      throw new Error(`every one of the ${users.length} users has used its authenticator in this 30-s step: set BENCH_MFA_USERS higher`);
    };
    const totpLogin = async () => {
      const user = freshUser();
      try {
        const first = await passwordGrant(user.email);
        const refused = (await first.json()) as Record<string, unknown>;
        if (first.status !== 403 || refused.error !== 'mfa_required' || typeof refused.mfa_token !== 'string') throw new Error(`TOTP login, first step: ${first.status} ${JSON.stringify(refused)}`);
        // The code of the step the second request is sent in (the server accepts one step either side of its clock).
        const step = currentStep();
        if ((lastStep.get(user.n) ?? -1) >= step) throw new Error(`TOTP login: ${user.userId} already answered step ${step}`);
        lastStep.set(user.n, step);
        const tokens = await call(tokenUrl, { method: 'POST', form: { ...clientForm, grant_type: MFA_OTP, mfa_token: refused.mfa_token, otp: totpCode(user.key, step) } });
        const amr = payloadOf(tokens.id_token).amr;
        if (typeof tokens.access_token !== 'string' || !Array.isArray(amr) || !amr.includes('mfa') || !amr.includes('otp')) throw new Error(`TOTP login: ${JSON.stringify(tokens)}`);
      } finally {
        inFlight.delete(user.n);
      }
    };

    const policy = (on: boolean) => management('PUT', '/guardian/policies', on ? ['all-applications'] : []);
    // The server's CPU time of each measured run, read between runs (the warm-ups, one per target, come first).
    const targets = [passwordOnly, totpLogin];
    const cpuMs = [0, 0];
    let runs = 0;
    let open: { target: number; since: number } | undefined;
    const closeRun = () => {
      if (open) cpuMs[open.target] = (cpuMs[open.target] ?? 0) + processCpuMs(server.pid) - open.since;
      open = undefined;
    };
    const [password, totp] = await compareLoopRates(targets, loops, settings.seconds, settings.warmupSeconds, {
      before: async (target) => {
        closeRun();
        await policy(target === 1);
        runs += 1;
        if (runs > targets.length) open = { target, since: processCpuMs(server.pid) };
      },
    });
    closeRun();
    if (!password || !totp) throw new Error('compareLoopRates answered fewer rates than targets');
    const ratio = totp.perSecond / password.perSecond;
    return {
      users: userCount,
      loops,
      passwordOnly: password.perSecond,
      totp: totp.perSecond,
      ratio,
      met: ratio >= MFA_LOGIN_AIM,
      measured: { passwordOnly: password.completed, totp: totp.completed },
      cpuMsPerLogin: { passwordOnly: (cpuMs[0] ?? 0) / password.completed, totp: (cpuMs[1] ?? 0) / totp.completed },
    };
  } finally {
    await server.stop();
  }
}

/** The printed block. The ratio to three places: at two, 0.899 would print as 0.90 beside MISSED. */
export function mfaLoginLines(figures: MfaLoginFigures, setUp: string): string {
  const cpu = figures.cpuMsPerLogin;
  return [
    `\nmulti-factor logins (${setUp}; password-realm grants, ${figures.loops} loops, the MFA policy switched between alternate rounds on one server):`,
    `  password-only login (password-realm → tokens)                          ${figures.passwordOnly.toFixed(1)}/s`,
    `  TOTP login (password-realm → 403 mfa_required → mfa-otp → tokens)       ${figures.totp.toFixed(1)}/s`,
    `  TOTP/password-only  ${figures.ratio.toFixed(3)} (aim ≥ ${MFA_LOGIN_AIM})  ${figures.met ? 'MET' : 'MISSED'}`,
    `  server CPU per login (all its threads): password-only ${cpu.passwordOnly.toFixed(1)} ms, TOTP ${cpu.totp.toFixed(1)} ms (+${(cpu.totp - cpu.passwordOnly).toFixed(1)} ms; ` +
      `the aim leaves ${(cpu.passwordOnly / MFA_LOGIN_AIM - cpu.passwordOnly).toFixed(1)} ms)`,
    `  ${figures.users} users, each with its own authenticator; ${figures.measured.totp} TOTP and ${figures.measured.passwordOnly} password-only logins measured, each TOTP login a fresh (user, 30-s step) pair`,
  ].join('\n');
}

// Alone: `node --import tsx bench/mfa-login.ts` (the same settings as `npm run bench`).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const settings: LoadSettings = {
    seconds: Number(process.env.BENCH_SECONDS ?? 8),
    warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 3),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-mfa-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const plan = planCpus();
  if (plan) pinSelf(plan.loadCpus);
  const setUp = plan ? 'one process, pinned to 1 CPU' : 'one process';
  console.log(`· multi-factor logins (${setUp})`);
  mfaLoginFigures({ settings, affinity: plan?.serverCpu, dataDir })
    .then((figures) => {
      console.log(mfaLoginLines(figures, setUp));
      console.log(`\n${JSON.stringify(figures)}`);
    })
    .catch((error: unknown) => {
      console.error('bench failed:', error instanceof Error ? error.message : error, error instanceof Error && error.cause !== undefined ? error.cause : '');
      process.exitCode = 1;
    })
    .finally(stopEverything);
}
