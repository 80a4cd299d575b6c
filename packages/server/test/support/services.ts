import net from 'node:net';

/**
 * PostgreSQL and Redis run beside the tests. When one is unreachable its suites are skipped with a loud
 * warning, unless REQUIRE_SERVICES=1 (CI), where an unreachable service fails the run instead.
 */
export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function requireService(name: string, url: string): Promise<boolean> {
  if (await reachable(url)) return true;
  if (process.env.REQUIRE_SERVICES === '1') throw new Error(`${name} is required (REQUIRE_SERVICES=1) but ${url} is unreachable`);
  console.warn(`\n!!! ${name} at ${url} is unreachable: its test suites are SKIPPED. Start it, or set REQUIRE_SERVICES=1 to fail instead.\n`);
  return false;
}

export const postgresAvailable = await requireService('PostgreSQL', POSTGRES_URL);
export const redisAvailable = await requireService('Redis', REDIS_URL);

export type DialectKind = 'sqlite' | 'postgres';

/** The dialects every storage-touching suite runs on. */
export const DIALECTS: readonly DialectKind[] = postgresAvailable ? ['sqlite', 'postgres'] : ['sqlite'];
