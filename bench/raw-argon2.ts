/**
 * Child process of `npm run bench`: raw argon2id password verifications per second at the cost Latchkey
 * configures (packages/server/src/services/passwords.ts), the floor of a password login's cost. run.ts starts
 * it pinned to the CPU the servers get. Several verifications are in flight, as under a server's load (they run
 * on the libuv pool; pinning keeps them to one core). Prints one JSON line: `{verifications}` per second.
 * Usage: node --import tsx bench/raw-argon2.ts [seconds] [in flight]
 */
import { hashPassword, verifyPassword } from '../packages/server/src/services/passwords.js';

const seconds = Number(process.argv[2] ?? 3);
const inFlight = Number(process.argv[3] ?? 4);
const password = 'correct horse battery staple 42';
const stored = await hashPassword(password);

async function worker(until: number): Promise<number> {
  let count = 0;
  while (performance.now() < until) {
    if (!(await verifyPassword(password, stored))) throw new Error('argon2id: the password did not verify');
    count += 1;
  }
  return count;
}

await Promise.all(Array.from({ length: inFlight }, () => worker(performance.now() + 500)));
const start = performance.now();
const counts = await Promise.all(Array.from({ length: inFlight }, () => worker(start + seconds * 1000)));
const elapsed = (performance.now() - start) / 1000;
process.stdout.write(`${JSON.stringify({ verifications: counts.reduce((a, b) => a + b, 0) / elapsed, inFlight })}\n`);
