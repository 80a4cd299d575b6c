/**
 * Starts one benchmark target in this process, or a node:cluster of them (all cores).
 * Usage: node --import tsx bench/server.ts <latchkey|peer> <workers>
 * Latchkey is configured from the environment exactly as `npm start` is; the peer from PORT and PEER_JWK.
 */
import cluster from 'node:cluster';
import { loadConfig } from '../packages/server/src/config/load.js';
import { serve } from '../packages/server/src/main.js';
import { startPeer } from './peer-oidc-provider.js';

const [target = 'latchkey', workersArg = '1'] = process.argv.slice(2);
const workers = Number(workersArg);

async function startOne() {
  if (target === 'peer') await startPeer(Number(process.env.PORT), JSON.parse(process.env.PEER_JWK ?? '{}') as Record<string, unknown>);
  else await serve(loadConfig());
}

if (workers > 1 && cluster.isPrimary) {
  let ready = 0;
  for (let i = 0; i < workers; i += 1) {
    cluster.fork().on('message', (message) => {
      if (message === 'ready' && ++ready === workers) console.log('ready');
    });
  }
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
    process.exit(0);
  });
} else {
  await startOne();
  if (cluster.isWorker) process.send?.('ready');
  else console.log('ready');
}
