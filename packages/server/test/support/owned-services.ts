import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

/**
 * A PostgreSQL server and a Redis server that one test owns, on free ports, so that it can stop, kill, pause and
 * restart them to show what Latchkey does during an outage. The shared services of services.ts must stay up for
 * every other suite.
 */

const run = promisify(execFile);

/** Waits until something accepts TCP connections on the port (bounded). */
async function listening(port: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => (socket.destroy(), resolve(false)));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface OwnedPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  url: string;
  /** Fast shutdown: every connection is ended, the port refuses new ones. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server (if running) and deletes its files. */
  destroy(): Promise<void>;
}

const POSTGRES_ROOT = '/usr/lib/postgresql';

/** The newest installed PostgreSQL's bin directory, if any. */
function postgresBin(): string | undefined {
  if (!existsSync(POSTGRES_ROOT)) return undefined;
  const versions = readdirSync(POSTGRES_ROOT).filter((name) => existsSync(join(POSTGRES_ROOT, name, 'bin', 'pg_ctl')));
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest === undefined ? undefined : join(POSTGRES_ROOT, newest, 'bin');
}

/**
 * Why this machine cannot run a PostgreSQL of the test's own, or undefined when it can: initdb and pg_ctl refuse
 * to run as root, so the test (root in CI's container) runs them as the `postgres` user through runuser.
 */
export function ownedPostgresUnsupported(): string | undefined {
  if (!postgresBin()) return `no PostgreSQL binaries under ${POSTGRES_ROOT}`;
  if (process.getuid?.() !== 0) return 'not running as root, so initdb cannot be run as the postgres user';
  return undefined;
}

export async function startOwnedPostgres(): Promise<OwnedPostgres> {
  const bin = postgresBin() ?? '';
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-own-pg-'));
  chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  const data = join(dir, 'data');
  const asPostgres = (tool: string, args: string[]) => run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { timeout: 60_000 });
  await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  let running = false;
  const start = async () => {
    await asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
    running = true;
  };
  const stop = async () => {
    await asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    running = false;
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    async destroy() {
      if (running) await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface OwnedRedis {
  url: string;
  /** SIGKILL: connections drop, the port refuses new ones, and every counter is lost (no persistence). */
  kill(): Promise<void>;
  /** SIGSTOP: connections stay open, and nothing is answered, as when a network path silently drops packets. */
  pause(): void;
  resume(): void;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startOwnedRedis(): Promise<OwnedRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await listening(port);
  };
  const kill = async () => {
    const current = child;
    child = undefined;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill('SIGCONT');
    current.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    start,
    destroy: kill,
  };
}
