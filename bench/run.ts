/**
 * `npm run bench`: Latchkey and node-oidc-provider side by side in one run, on loopback only.
 * Prints req/s, p99 and ratios; writes the same figures to .bench/results.json. Bounded: about two minutes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, sign, webcrypto } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { exportJWK, generateKeyPair } from 'jose';
import { PROMPT_SCREENS } from '../packages/server/src/services/rendering/catalogue.js';
import { PEER_AUDIENCE, PEER_CLIENT } from './peer-oidc-provider.js';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8);
const WARMUP_S = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ADMIN = { id: 'bench-admin', secret: 'bench-admin-secret-0123456789abcdefghijkl' };
const CORES = availableParallelism();

const children = new Set<ChildProcess>();
const cleanups: (() => void)[] = [];
function shutdown() {
  for (const child of children) child.kill('SIGTERM');
  for (const cleanup of cleanups) cleanup();
}
process.on('exit', shutdown);
process.on('SIGINT', () => process.exit(130));

/** A JWT-sized payload: what one access token signature covers. */
const SIGNING_INPUT = Buffer.from(`${'e'.repeat(36)}.${'p'.repeat(320)}`);

async function rawSigningRates() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let count = 0;
  let start = performance.now();
  while (performance.now() - start < 2000) {
    sign('sha256', SIGNING_INPUT, privateKey);
    count += 1;
  }
  const syncRate = count / ((performance.now() - start) / 1000);
  const key = await webcrypto.subtle.importKey('pkcs8', privateKey.export({ type: 'pkcs8', format: 'der' }), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
  count = 0;
  start = performance.now();
  while (performance.now() - start < 2000) {
    await webcrypto.subtle.sign('RSASSA-PKCS1-v1_5', key, SIGNING_INPUT);
    count += 1;
  }
  return { syncRate, webcryptoRate: count / ((performance.now() - start) / 1000) };
}

let nextPort = 43_100 + Math.floor(Math.random() * 500);

async function startTarget(target: 'latchkey' | 'peer', workers: number, env: Record<string, string>) {
  const port = nextPort++;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/server.ts', target, String(workers)], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'development' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${target} did not start in 60 s`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`${target} exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      children.delete(child);
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

interface Measurement {
  rps: number;
  p99: number;
  errors: number;
}

async function load(options: autocannon.Options): Promise<Measurement> {
  await autocannon({ ...options, connections: CONNECTIONS, duration: WARMUP_S });
  const result = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION_S });
  const errors = result.non2xx + result.errors + result.timeouts;
  if (errors > 0) throw new Error(`${options.url}: ${errors} failed requests (non-2xx ${result.non2xx}, errors ${result.errors})`);
  return { rps: result.requests.average, p99: result.latency.p99, errors };
}

function formPost(url: string, form: Record<string, string>): autocannon.Options {
  return { url, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() };
}

async function postJson(url: string, body: unknown, token?: string) {
  const response = await fetch(url, {
    method: url.includes('/oauth/token') ? 'POST' : 'PATCH',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

function assertRs256Jwt(token: unknown, who: string) {
  const header = JSON.parse(Buffer.from(String(token).split('.')[0] ?? '', 'base64url').toString()) as { alg?: string };
  if (header.alg !== 'RS256') throw new Error(`${who} did not issue an RS256 JWT access token`);
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const peerEnv = { PEER_JWK: JSON.stringify(await exportJWK(privateKey)) };
  const latchkeyEnv = (port: number) => ({
    DATABASE_URL: `sqlite:${join(dataDir, `latchkey-${port}.db`)}`,
    LATCHKEY_DATA_DIR: dataDir,
    LATCHKEY_ISSUER: `http://127.0.0.1:${port}`,
    LATCHKEY_SECRET: 'bench-deployment-secret-0123456789abcdefgh',
    LATCHKEY_ADMIN_CLIENT_ID: ADMIN.id,
    LATCHKEY_ADMIN_CLIENT_SECRET: ADMIN.secret,
    LATCHKEY_MGMT_RATE_LIMIT: '1000000/s',
    LOG_LEVEL: 'silent',
  });

  console.log(`Latchkey vs node-oidc-provider — ${CORES} cores, ${CONNECTIONS} connections, ${DURATION_S} s per measurement\n`);
  const raw = await rawSigningRates();
  console.log(`raw RS256 signing, one core: node:crypto sign ${raw.syncRate.toFixed(0)}/s, WebCrypto ${raw.webcryptoRate.toFixed(0)}/s`);

  const results: Record<string, unknown> = { cores: CORES, connections: CONNECTIONS, durationSeconds: DURATION_S, rawSigning: raw };
  const rows: string[][] = [];

  for (const workers of [1, CORES]) {
    const label = workers === 1 ? 'one process' : `${workers} processes`;
    // Latchkey
    const lkPort = nextPort;
    const latchkey = await startTarget('latchkey', workers, latchkeyEnv(lkPort));
    const audience = `http://127.0.0.1:${lkPort}/api/v2/`;
    const tokenForm = { grant_type: 'client_credentials', client_id: ADMIN.id, client_secret: ADMIN.secret, audience };
    const first = await postJson(`${latchkey.url}/oauth/token`, tokenForm);
    assertRs256Jwt(first.access_token, 'Latchkey');
    const lkToken = await load(formPost(`${latchkey.url}/oauth/token`, tokenForm));

    let list: Measurement | undefined;
    if (workers === 1) {
      const pairs = Object.entries(PROMPT_SCREENS).flatMap(([prompt, screens]) => screens.map((screen) => ({ prompt, screen })));
      // A tenant can configure only the catalogue's screens (91), so the listed page holds all of them.
      const configs = pairs.map((pair, i) => ({ ...pair, rendering_mode: i % 2 ? 'advanced' : 'standard', context_configuration: ['tenant.name'], head_tags: [{ tag: 'meta', attributes: { name: 'x', content: String(i) } }] }));
      await postJson(`${latchkey.url}/api/v2/prompts/rendering`, { configs }, String(first.access_token));
      results.renderingConfigs = configs.length;
      list = await load({ url: `${latchkey.url}/api/v2/prompts/rendering?per_page=100`, headers: { authorization: `Bearer ${String(first.access_token)}` } });
    }
    await latchkey.stop();

    // Peer
    const peer = await startTarget('peer', workers, peerEnv);
    const peerForm = { grant_type: 'client_credentials', client_id: PEER_CLIENT.id, client_secret: PEER_CLIENT.secret, resource: PEER_AUDIENCE, scope: 'read:things' };
    const peerFirst = await fetch(`${peer.url}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(peerForm) });
    const peerBody = (await peerFirst.json()) as Record<string, unknown>;
    if (!peerFirst.ok) throw new Error(`peer token request failed: ${JSON.stringify(peerBody)}`);
    assertRs256Jwt(peerBody.access_token, 'node-oidc-provider');
    const peerToken = await load(formPost(`${peer.url}/token`, peerForm));
    await peer.stop();

    rows.push([`client-credentials tokens (${label})`, lkToken.rps.toFixed(0), `${lkToken.p99} ms`, peerToken.rps.toFixed(0), `${peerToken.p99} ms`, `${(lkToken.rps / peerToken.rps).toFixed(2)}×`]);
    results[`tokens_${workers}`] = { latchkey: lkToken, peer: peerToken, ratio: lkToken.rps / peerToken.rps, ofRawSigning: lkToken.rps / raw.syncRate };
    if (list) {
      rows.push([`GET /api/v2/prompts/rendering, ${String(results.renderingConfigs)} configs (${label})`, list.rps.toFixed(0), `${list.p99} ms`, '—', '—', '—']);
      results.renderingList = list;
    }
    console.log(`done: ${label}`);
  }

  const header = ['scenario', 'Latchkey req/s', 'p99', 'peer req/s', 'p99', 'ratio'];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ');
  console.log(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n${rows.map(line).join('\n')}`);
  const single = results.tokens_1 as { ratio: number; ofRawSigning: number };
  console.log(
    `\nLatchkey token issuance (one process) = ${single.ratio.toFixed(2)}× the peer (target ≥ 1.5×) and ` +
      `${single.ofRawSigning.toFixed(2)} of the raw single-core signing rate (target ≥ 0.7).`,
  );
  mkdirSync('.bench', { recursive: true });
  writeFileSync('.bench/results.json', `${JSON.stringify(results, null, 2)}\n`);
}

main()
  .catch((error: unknown) => {
    console.error('bench failed:', error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(shutdown);
