/**
 * User flows for `npm run bench`: complete authorization-code logins (authorize → login page → form post →
 * code → token) and refresh-token rotation chains. Neither can be replayed blindly (each step needs the previous
 * answer, and a refresh token is single-use): logins are driven by a fixed number of concurrent loops, refresh
 * by autocannon handing each answer's token to the connection's next request. Every step is checked and any
 * failure fails the bench.
 */
import { call, type Request } from './measure.js';

export const USER_PASSWORD = 'correct horse battery staple 42';
const CALLBACK = 'https://app.bench.example/callback';

export interface UserFlowSetup {
  clientId: string;
  clientSecret: string;
  connection: string;
  email: string;
  /** `email` first, then the other users' addresses (all share USER_PASSWORD). */
  emails: string[];
}

/**
 * A web application, a database connection enabled for it, and `users` users (at least one), through the
 * Management API.
 */
export async function provisionUserFlows(baseUrl: string, adminToken: string, users = 1): Promise<UserFlowSetup> {
  const api = (path: string, json: unknown) => call(`${baseUrl}/api/v2${path}`, { method: 'POST', json, token: adminToken });
  const client = await api('/clients', {
    name: 'Bench web',
    app_type: 'regular_web',
    callbacks: [CALLBACK],
    grant_types: ['authorization_code', 'refresh_token', 'http://auth0.com/oauth/grant-type/password-realm'],
  });
  const clientId = String(client.client_id);
  const connection = 'bench-users';
  await api('/connections', { name: connection, strategy: 'auth0', enabled_clients: [clientId] });
  const emails = Array.from({ length: Math.max(1, users) }, (_, i) => (i === 0 ? 'bench-user@example.com' : `bench-user-${i}@example.com`));
  for (const [i, email] of emails.entries()) {
    await api('/users', { connection, email, password: USER_PASSWORD, name: `Bench User ${i}`, email_verified: true });
  }
  return { clientId, clientSecret: String(client.client_secret), connection, email: emails[0] as string, emails };
}

/** Runs `loops` concurrent loops of `once` until `ms` have passed; answers the completions and the time they took. */
async function runLoops(once: (loop: number) => Promise<unknown>, loops: number, ms: number): Promise<{ completed: number; seconds: number }> {
  const start = performance.now();
  const until = start + ms;
  const counts = await Promise.all(
    Array.from({ length: loops }, async (_, loop) => {
      let count = 0;
      while (performance.now() < until) {
        await once(loop);
        count += 1;
      }
      return count;
    }),
  );
  return { completed: counts.reduce((a, b) => a + b, 0), seconds: (performance.now() - start) / 1000 };
}

/** Runs `loops` concurrent loops of `once` for `seconds` (after a warm-up) and returns completions per second. */
export async function loopRate(once: (loop: number) => Promise<unknown>, loops: number, seconds: number, warmupSeconds: number): Promise<number> {
  await runLoops(once, loops, warmupSeconds * 1000);
  const { completed, seconds: took } = await runLoops(once, loops, seconds * 1000);
  return completed / took;
}

/**
 * Several loop targets side by side, as `compare` (measure.ts) loads autocannon targets: each warmed up, then the
 * measured time cut into rounds that alternate between them, so that outside activity does not fall on one only.
 * `before` runs ahead of each run of a target (its warm-up and each round), e.g. to switch a tenant setting that
 * targets on one server differ by. Answers each target's completions per second and its measured completions.
 */
export async function compareLoopRates(
  targets: ((loop: number) => Promise<unknown>)[],
  loops: number,
  seconds: number,
  warmupSeconds: number,
  options: { rounds?: number; before?: (target: number) => Promise<void> } = {},
): Promise<{ perSecond: number; completed: number }[]> {
  const { rounds = 2, before } = options;
  for (const [i, once] of targets.entries()) {
    await before?.(i);
    await runLoops(once, loops, warmupSeconds * 1000);
  }
  const totals = targets.map(() => ({ completed: 0, seconds: 0 }));
  for (let round = 0; round < rounds; round += 1) {
    for (const [i, once] of targets.entries()) {
      await before?.(i);
      const run = await runLoops(once, loops, (seconds * 1000) / rounds);
      const total = totals[i] as { completed: number; seconds: number };
      total.completed += run.completed;
      total.seconds += run.seconds;
    }
  }
  return totals.map((total) => ({ perSecond: total.completed / total.seconds, completed: total.completed }));
}

function cookiesOf(response: Response, jar: Map<string, string>) {
  for (const line of response.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
}

const cookieHeader = (jar: Map<string, string>) => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';

/** What differs between the servers a browser login is run against; the four steps are the same. */
interface LoginSteps {
  authorizeQuery: Record<string, string>;
  /** Where /authorize must send the browser. */
  loginPath: string;
  username: string;
  password: string;
  /** The code exchange's form, besides `grant_type` and `code`. */
  tokenForm: Record<string, string>;
}

/** One complete login of a browser without a session: the four requests a real one makes, each checked. */
async function browserLogin(baseUrl: string, steps: LoginSteps): Promise<Record<string, unknown>> {
  const jar = new Map<string, string>();
  const start = await fetch(`${baseUrl}/authorize?${new URLSearchParams(steps.authorizeQuery).toString()}`, { redirect: 'manual' });
  cookiesOf(start, jar);
  await start.arrayBuffer();
  const loginPath = start.headers.get('location');
  if (start.status !== 302 || !loginPath?.startsWith(steps.loginPath)) throw new Error(`authorize: ${start.status} ${loginPath ?? ''}`);
  const page = await fetch(`${baseUrl}${loginPath}`, { headers: { cookie: cookieHeader(jar) } });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`login page: ${page.status}`);
  const posted = await fetch(`${baseUrl}${loginPath}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: cookieHeader(jar), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ state: field(html, 'state'), username: steps.username, password: steps.password }).toString(),
  });
  await posted.arrayBuffer();
  const code = new URL(posted.headers.get('location') ?? 'x:', baseUrl).searchParams.get('code');
  if (posted.status !== 302 || !code) throw new Error(`login post: ${posted.status} ${posted.headers.get('location') ?? ''}`);
  const tokens = await call(`${baseUrl}/oauth/token`, { method: 'POST', form: { ...steps.tokenForm, grant_type: 'authorization_code', code } });
  if (typeof tokens.id_token !== 'string') throw new Error('token: no ID token');
  return tokens;
}

/**
 * One login at Latchkey's hosted login page. `user` picks one of the provisioned users (modulo their number);
 * `authorize` adds to (or replaces) the authorization request's parameters, e.g. an `audience` and its scopes.
 */
export function oneLogin(baseUrl: string, setup: UserFlowSetup, user = 0, authorize: Record<string, string> = {}): Promise<Record<string, unknown>> {
  return browserLogin(baseUrl, {
    authorizeQuery: { client_id: setup.clientId, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid profile email', state: 'bench', ...authorize },
    loginPath: '/u/login',
    username: setup.emails[user % setup.emails.length] ?? setup.email,
    password: USER_PASSWORD,
    tokenForm: { client_id: setup.clientId, client_secret: setup.clientSecret, redirect_uri: CALLBACK },
  });
}

/** One login at the floor login server (bench/floor-servers.ts). */
export function oneFloorLogin(baseUrl: string, password: string): Promise<Record<string, unknown>> {
  return browserLogin(baseUrl, {
    authorizeQuery: { client_id: 'floor', response_type: 'code', state: 'floor' },
    loginPath: '/login',
    username: 'floor',
    password,
    tokenForm: { client_id: 'floor' },
  });
}

/**
 * Refresh-token rotation under autocannon: every request spends a token from a pool of chains and its answer
 * puts the successor back, so each connection keeps one chain going. (Loops of fetch calls kept the server only
 * 95-97 % busy on its one CPU; autocannon keeps it at 99 %, so the rate measures the server.) A run ends with up
 * to one request per connection in flight, whose successor is never read, so before each run `seed` starts
 * chains until there is one per connection. An answer that does not rotate the token or lacks an ID token is a
 * mismatch; a pool that runs dry (also when a server hands the spent token back) sends a token the server must
 * refuse, a failed request.
 */
export function refreshLoad(tokenUrl: string, form: Record<string, string>, seed: () => Promise<string>, connections: number): Request {
  const pool: string[] = [];
  const rotated = (body: string) => /"refresh_token":"([^"]+)"/.exec(body)?.[1];
  return {
    url: tokenUrl,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    verifyBody: (body) => body.includes('"id_token":"ey') && rotated(body) !== undefined,
    beforeRun: async () => {
      while (pool.length < connections) pool.push(await seed());
    },
    requests: [
      {
        method: 'POST',
        setupRequest: (request, context) => {
          context.spent = pool.shift() ?? 'pool-ran-dry';
          return { ...request, body: new URLSearchParams({ ...form, grant_type: 'refresh_token', refresh_token: String(context.spent) }).toString() };
        },
        onResponse: (status, body, context) => {
          const next = status === 200 ? rotated(body) : undefined;
          // A token handed back unchanged is not a rotation: leave it out, and the pool runs dry.
          if (next && next !== context.spent) pool.push(next);
        },
      },
    ],
  };
}

/** A browser step against the peer: follows nothing, keeps cookies, returns the answer's Location. */
async function step(url: string, jar: Map<string, string>, form?: Record<string, string>): Promise<string> {
  const response = await fetch(url, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: { cookie: cookieHeader(jar), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  cookiesOf(response, jar);
  await response.arrayBuffer();
  const location = response.headers.get('location');
  if (!location || response.status < 300 || response.status > 399) throw new Error(`peer ${url}: ${response.status}`);
  return new URL(location, url).href;
}

/**
 * The peer's first tokens for one chain: authorization code with PKCE through its development login, then the
 * code exchange. Returns the refresh token and an access token for its userinfo endpoint.
 */
export async function peerUserTokens(baseUrl: string, client: { id: string; secret: string; callback: string }): Promise<{ refreshToken: string; accessToken: string }> {
  const { createHash, randomBytes } = await import('node:crypto');
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const jar = new Map<string, string>();
  const query = new URLSearchParams({
    client_id: client.id,
    redirect_uri: client.callback,
    response_type: 'code',
    scope: 'openid offline_access profile email',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const interaction = await step(`${baseUrl}/auth?${query.toString()}`, jar);
  const resume = await step(interaction, jar, { prompt: 'login', login: 'bench-user', password: 'x' });
  const callback = new URL(await step(resume, jar));
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`peer login: no code in ${callback.href}`);
  const tokens = await call(`${baseUrl}/oauth/token`, {
    method: 'POST',
    form: { grant_type: 'authorization_code', code, redirect_uri: client.callback, client_id: client.id, client_secret: client.secret, code_verifier: verifier },
  });
  if (typeof tokens.refresh_token !== 'string' || typeof tokens.access_token !== 'string') throw new Error('peer: no refresh or access token');
  return { refreshToken: tokens.refresh_token, accessToken: tokens.access_token };
}
