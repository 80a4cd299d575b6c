/**
 * Load and checks: autocannon runs (warm-up, then the measured run; any failed request fails the bench) and
 * the proof that a token endpoint really answers with an RS256 JWT signed by a key from its JWKS.
 */
import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import autocannon from 'autocannon';

export interface LoadSettings {
  seconds: number;
  warmupSeconds: number;
  connections: number;
}

export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
}

export interface Request {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Cheap check of every response body; a mismatch counts as a failed request. */
  verifyBody?: (body: string) => boolean;
  /** autocannon's request sequence, for requests that depend on earlier answers (bench/user-flows.ts). */
  requests?: autocannon.Request[];
  /** Runs before each autocannon run of this request (warm-up and rounds), e.g. to top up its tokens. */
  beforeRun?: () => Promise<void>;
}

function assertClean(name: string, result: autocannon.Result): void {
  const failed = result.non2xx + result.errors + result.timeouts + result.mismatches;
  if (failed === 0 && result['2xx'] > 0) return;
  const statuses = Object.entries(result.statusCodeStats)
    .map(([status, { count }]) => `${status}×${count}`)
    .join(', ');
  throw new Error(
    `${name}: ${failed} failed requests of ${result.requests.total} — non-2xx ${result.non2xx} (${statuses}), ` +
      `errors ${result.errors}, timeouts ${result.timeouts}, body mismatches ${result.mismatches}`,
  );
}

function summary(results: autocannon.Result[]): Measurement {
  const requests = results.reduce((sum, result) => sum + result.requests.total, 0);
  const seconds = results.reduce((sum, result) => sum + result.duration, 0);
  // Percentiles of separate runs cannot be merged exactly; the worst one is the honest figure.
  return {
    rps: requests / seconds,
    p50: Math.max(...results.map((result) => result.latency.p50)),
    p99: Math.max(...results.map((result) => result.latency.p99)),
    requests,
  };
}

async function run(name: string, { beforeRun, ...request }: Request, connections: number, seconds: number): Promise<autocannon.Result> {
  await beforeRun?.();
  const result = await autocannon({ ...request, connections, duration: seconds });
  assertClean(name, result);
  return result;
}

/** One target: a warm-up, then one measured run. */
export async function load(name: string, request: Request, settings: LoadSettings): Promise<Measurement> {
  await run(`${name} (warm-up)`, request, settings.connections, settings.warmupSeconds);
  return summary([await run(name, request, settings.connections, settings.seconds)]);
}

/**
 * Several targets that run side by side, loaded one at a time: each is warmed up, then the measured time is
 * cut into rounds that alternate between them, so that a burst of outside activity or a slow drift of the
 * machine does not fall on one target only.
 */
export async function compare(targets: { name: string; request: Request }[], settings: LoadSettings, rounds = 2): Promise<Measurement[]> {
  for (const { name, request } of targets) await run(`${name} (warm-up)`, request, settings.connections, settings.warmupSeconds);
  const results = targets.map((): autocannon.Result[] => []);
  for (let round = 0; round < rounds; round += 1) {
    for (const [i, { name, request }] of targets.entries()) results[i]?.push(await run(name, request, settings.connections, settings.seconds / rounds));
  }
  return results.map(summary);
}

export function formPost(url: string, form: Record<string, string>): Request {
  return {
    url,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    verifyBody: (body) => body.includes('"access_token":"ey'),
  };
}

/** POST/PATCH JSON (or a form) and return the parsed answer (empty: {}); anything but 2xx throws with the body. */
export async function call(url: string, init: { method: string; json?: unknown; form?: Record<string, string>; token?: string }): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  const response = await fetch(url, { method: init.method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method} ${url}: ${response.status} ${text}`);
  // Some answers have no body (a 201 or 204 of the Management API).
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

function decodePart(part: string | undefined): Record<string, unknown> {
  return JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** Throws unless `token` is a JWS with alg RS256 whose signature verifies with the `kid` key of `jwksUrl`. */
export async function assertRs256Jwt(token: unknown, jwksUrl: string, who: string): Promise<{ header: Record<string, unknown>; claims: Record<string, unknown> }> {
  const parts = typeof token === 'string' ? token.split('.') : [];
  if (parts.length !== 3) throw new Error(`${who}: the access token is not a compact JWS: ${String(token)}`);
  const header = decodePart(parts[0]);
  const claims = decodePart(parts[1]);
  if (header.alg !== 'RS256') throw new Error(`${who}: the access token's alg is ${String(header.alg)}, not RS256`);
  const jwks = (await call(jwksUrl, { method: 'GET' })) as { keys?: (JsonWebKey & { kid?: string })[] };
  const jwk = jwks.keys?.find((key) => key.kid === header.kid);
  if (!jwk) throw new Error(`${who}: no key ${String(header.kid)} in ${jwksUrl}`);
  const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
  const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
  if (!verify('sha256', signed, publicKey, Buffer.from(parts[2] ?? '', 'base64url'))) {
    throw new Error(`${who}: the access token's RS256 signature does not verify`);
  }
  if ((publicKey.asymmetricKeyDetails?.modulusLength ?? 0) !== 2048) throw new Error(`${who}: the signing key is not 2048-bit RSA`);
  return { header, claims };
}
