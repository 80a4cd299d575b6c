/**
 * Child process of `npm run bench`: one benchmark target, in this process or as a node:cluster of workers.
 * Usage: node --import tsx bench/server.ts <latchkey|peer|peer-users|bare|floor-sign|floor-rotation|floor-login> <workers>
 * Latchkey is configured from the environment exactly as `latchkey serve` is (PORT, HOST, DATABASE_URL, ...);
 * the peer reads PORT, HOST and PEER_JWK. Tells the parent `{ready: true}` over IPC once every worker
 * listens, and exits when the parent goes away, so no server outlives a run.
 */
import cluster from 'node:cluster';
import { loadConfig } from '../packages/server/src/config/load.js';
import { serve } from '../packages/server/src/main.js';
import { startBareSigner } from './bare-signer.js';
import { startFloor, type FloorKind } from './floor-servers.js';
import { startPeer, startPeerUsers } from './peer-oidc-provider.js';

const [target, workersArg = '1'] = process.argv.slice(2);
const workers = Number(workersArg);
const FLOORS: readonly string[] = ['floor-sign', 'floor-rotation', 'floor-login'] satisfies FloorKind[];
if (![...['latchkey', 'peer', 'peer-users', 'bare'], ...FLOORS].includes(target ?? '') || !Number.isInteger(workers) || workers < 1) {
  console.error('usage: bench/server.ts <latchkey|peer|peer-users|bare|floor-sign|floor-rotation|floor-login> <workers>');
  process.exit(2);
}

async function startOne(): Promise<void> {
  if (target === 'bare') {
    await startBareSigner(process.env.HOST ?? '127.0.0.1', Number(process.env.PORT));
  } else if (FLOORS.includes(target ?? '')) {
    await startFloor(target as FloorKind, process.env.HOST ?? '127.0.0.1', Number(process.env.PORT));
  } else if (target === 'peer' || target === 'peer-users') {
    const jwk = JSON.parse(process.env.PEER_JWK ?? 'null') as Record<string, unknown> | null;
    if (!jwk) throw new Error('PEER_JWK is not set');
    await (target === 'peer' ? startPeer : startPeerUsers)(process.env.HOST ?? '127.0.0.1', Number(process.env.PORT), jwk);
  } else {
    await serve(loadConfig());
  }
}

function fail(error: unknown): never {
  console.error(`${target} failed to start:`, error);
  process.exit(1);
}

// The parent's IPC channel closes when it exits, however it exits.
process.on('disconnect', () => process.exit(0));

if (cluster.isPrimary && workers > 1) {
  let ready = 0;
  for (let i = 0; i < workers; i += 1) {
    const worker = cluster.fork();
    worker.on('message', (message: unknown) => {
      if (message === 'ready' && ++ready === workers) process.send?.({ ready: true });
    });
    worker.on('exit', (code) => {
      if (code !== 0 && !worker.exitedAfterDisconnect) fail(new Error(`worker exited with ${code}`));
    });
  }
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    process.exit(0);
  });
} else {
  // A clean exit on SIGTERM, so that `node --cpu-prof` (NODE_OPTIONS) writes its profile.
  process.on('SIGTERM', () => process.exit(0));
  await startOne().catch(fail);
  process.send?.(cluster.isWorker ? 'ready' : { ready: true });
}
