/**
 * Diagnostic, not part of `npm run bench`: where a Latchkey client-credentials token's time goes on one CPU.
 * Runs the real app (SQLite, pinned to one CPU like the bench) in four variants and loads each:
 *   full                 as shipped (client, API and client grant come from the configuration cache)
 *   uncached             the configuration cache off (LATCHKEY_CONFIG_CACHE_SECONDS=0): three lookups a token
 *   signing-stubbed      as shipped, but a token signed once at start is returned instead of signing
 *   uncached-stubbed     both of the above
 * The differences in µs per request are the cost of the storage lookups and of signing under load.
 * Usage: node --import tsx bench/breakdown.ts   (BENCH_SECONDS, BENCH_CONNECTIONS as for the bench;
 * BENCH_PROFILE=1 also writes V8 CPU profiles, one per thread, to .bench/profiles/<variant>/; the
 * largest file is the main thread's)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../packages/server/src/app.js';
import { loadConfig } from '../packages/server/src/config/load.js';
import { createRegistry, type Registry } from '../packages/server/src/registry.js';
import { formPost, load } from './measure.js';
import { freePort, onCleanup, pinSelf, planCpus, spawnNode, stopEverything } from './processes.js';

const VARIANTS = ['full', 'uncached', 'signing-stubbed', 'uncached-stubbed'] as const;
type Variant = (typeof VARIANTS)[number];

async function serveVariant(variant: Variant) {
  const config = loadConfig();
  const registry: Registry = await createRegistry(config);
  if (variant.endsWith('stubbed')) {
    const claims = { sub: 'x@clients', aud: registry.managementAudience, azp: 'x', scope: 'x', gty: 'client-credentials' };
    const signed = await registry.tokens.accessToken(claims, 86_400);
    registry.tokens = { accessToken: async () => signed };
  }
  const app = await buildApp(registry);
  await app.listen({ port: config.port, host: config.host });
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
  process.send?.({ ready: true });
}

async function main() {
  const plan = planCpus();
  if (!plan) throw new Error('needs taskset and at least two CPUs');
  pinSelf(plan.loadCpus);
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-breakdown-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const settings = { seconds: Number(process.env.BENCH_SECONDS ?? 8), warmupSeconds: 2, connections: Number(process.env.BENCH_CONNECTIONS ?? 32) };
  const secret = 'bench-admin-secret-0123456789abcdefghijkl';
  const perRequest = new Map<Variant, number>();
  for (const variant of VARIANTS) {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const child = spawnNode('bench/breakdown.ts', ['serve', variant], {
      name: variant,
      ...(process.env.BENCH_PROFILE ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=.bench/profiles/${variant}`] } : {}),
      cpus: plan.serverCpu,
      env: {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${join(dataDir, `${variant}.db`)}`,
        LATCHKEY_DATA_DIR: dataDir,
        LATCHKEY_ISSUER: issuer,
        LATCHKEY_SECRET: 'bench-deployment-secret-0123456789abcdefghijkl',
        LATCHKEY_ADMIN_CLIENT_ID: 'bench-admin',
        LATCHKEY_ADMIN_CLIENT_SECRET: secret,
        LATCHKEY_AUTH_RATE_LIMIT: '1000000/s',
        LOG_LEVEL: 'silent',
        NODE_ENV: 'production',
        LATCHKEY_CONFIG_CACHE_SECONDS: variant.startsWith('uncached') ? '0' : '5',
      },
    });
    await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`${variant} exited with ${code}`)));
    });
    const form = { grant_type: 'client_credentials', client_id: 'bench-admin', client_secret: secret, audience: `${issuer}/api/v2/` };
    const result = await load(variant, formPost(`${issuer}/oauth/token`, form), settings);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    perRequest.set(variant, 1e6 / result.rps);
    console.log(`${variant.padEnd(17)} ${result.rps.toFixed(0).padStart(6)} req/s  ${(1e6 / result.rps).toFixed(0).padStart(5)} µs/request  p99 ${result.p99} ms`);
  }
  const us = (variant: Variant) => perRequest.get(variant) ?? 0;
  console.log(`\non CPU ${plan.serverCpu}, per token: signing ≈ ${(us('full') - us('signing-stubbed')).toFixed(0)} µs, ` +
    `storage lookups when uncached ≈ ${(us('uncached-stubbed') - us('signing-stubbed')).toFixed(0)} µs, everything else ≈ ${us('signing-stubbed').toFixed(0)} µs`);
}

if (process.argv[2] === 'serve') {
  await serveVariant(process.argv[3] as Variant);
} else {
  await main()
    .catch((error: unknown) => {
      console.error('breakdown failed:', error instanceof Error ? error.message : error);
      process.exitCode = 1;
    })
    .finally(stopEverything);
}
