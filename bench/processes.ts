/**
 * Child processes of a bench run: CPU pinning, free loopback ports, starting targets, and making sure every
 * child is gone when the run ends, however it ends.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import type { FloorKind } from './floor-servers.js';

export const LOOPBACK = '127.0.0.1';

const children = new Set<ChildProcess>();
const cleanups: (() => void)[] = [];

/** Kills every child still running and runs the registered cleanups. Safe to call more than once. */
export function stopEverything(): void {
  for (const child of children) child.kill('SIGTERM');
  children.clear();
  for (const cleanup of cleanups.splice(0)) cleanup();
}

export function onCleanup(cleanup: () => void): void {
  cleanups.push(cleanup);
}

process.on('exit', stopEverything);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => process.exit(130));

/** CPUs this process may use, as listed by `taskset` (undefined when taskset is unavailable). */
function allowedCpus(): number[] | undefined {
  const probe = spawnSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' });
  const list = probe.status === 0 ? /list:\s*([\d,-]+)/.exec(probe.stdout)?.[1] : undefined;
  if (!list) return undefined;
  return list.split(',').flatMap((part) => {
    const [from, to = from] = part.split('-').map(Number) as [number, number?];
    return Array.from({ length: (to ?? from) - from + 1 }, (_, i) => from + i);
  });
}

export interface CpuPlan {
  /** The one CPU a single-process server (and the raw signing child) is pinned to, as a taskset list. */
  serverCpu: string;
  /** Where the load generator (this process) runs meanwhile. */
  loadCpus: string;
  allCpus: string;
}

/** One CPU for the server under test, the rest for the load generator; undefined when that is impossible. */
export function planCpus(): CpuPlan | undefined {
  const cpus = allowedCpus();
  if (!cpus || cpus.length < 2) return undefined;
  const serverCpu = String(cpus[cpus.length - 1]);
  return { serverCpu, loadCpus: cpus.slice(0, -1).join(','), allCpus: cpus.join(',') };
}

/** Re-pins every thread of this process (the load generator). */
export function pinSelf(cpus: string): void {
  const result = spawnSync('taskset', ['-a', '-cp', cpus, String(process.pid)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`taskset could not pin the load generator: ${result.stderr}`);
}

/**
 * A loopback port that was free a moment ago, drawn below Linux's ephemeral range (32768-60999): a port the kernel
 * hands out for port 0 can be taken by an outgoing connection (to PostgreSQL, say) before the server binds it.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, LOOPBACK, () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free loopback port found');
}

/** The administration client every bench Latchkey bootstraps (fixed, so that the bench can get tokens). */
export const BENCH_ADMIN = { id: 'bench-admin', secret: 'bench-admin-secret-0123456789abcdefghijkl' };

/**
 * The environment of a bench Latchkey: production settings, the fixed secret and admin client, no demo, no logs,
 * and limits high enough that the load generator's one address is never refused.
 */
export function latchkeyEnv(options: { databaseUrl: string; dataDir: string; port: number; tenant?: string }): Record<string, string> {
  return {
    DATABASE_URL: options.databaseUrl,
    LATCHKEY_DATA_DIR: options.dataDir,
    LATCHKEY_ISSUER: `http://${LOOPBACK}:${options.port}`,
    ...(options.tenant !== undefined ? { LATCHKEY_TENANT: options.tenant } : {}),
    LATCHKEY_SECRET: 'bench-deployment-secret-0123456789abcdefghijkl',
    LATCHKEY_ADMIN_CLIENT_ID: BENCH_ADMIN.id,
    LATCHKEY_ADMIN_CLIENT_SECRET: BENCH_ADMIN.secret,
    LATCHKEY_MGMT_RATE_LIMIT: '1000000/s',
    LATCHKEY_AUTH_RATE_LIMIT: '1000000/s',
    LATCHKEY_DEMO: 'off',
    // No console bootstrap (its administrator would be one more user than the benches seed).
    LATCHKEY_CONSOLE: 'off',
    LOG_LEVEL: 'silent',
    NODE_ENV: 'production',
  };
}

/** Known, harmless start-up warnings of the peer, printed once per run rather than once per process. */
const QUIET = [/^oidc-provider WARNING: Unsupported runtime/, /^oidc-provider WARNING: a quick start development-only in-memory adapter/];
export const quietedWarnings = new Set<string>();

function relayStderr(child: ChildProcess, name: string) {
  if (!child.stderr) return;
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (QUIET.some((pattern) => pattern.test(line))) quietedWarnings.add(line);
    else console.error(`[${name}] ${line}`);
  });
}

/**
 * A node child running `script` under tsx, with an IPC channel. `cpus` (a taskset list such as "1" or "0,1")
 * sets its CPU affinity; without it the child inherits this process's, which may be pinned to other CPUs.
 */
export function spawnNode(
  script: string,
  args: string[],
  options: { name: string; cpus?: string; env?: Record<string, string>; nodeArgs?: string[] },
): ChildProcess {
  const node = [process.execPath, ...(options.nodeArgs ?? []), '--import', 'tsx', script, ...args];
  const [command, ...commandArgs] = options.cpus === undefined ? node : ['taskset', '-c', options.cpus, ...node];
  const child = spawn(command as string, commandArgs, {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  relayStderr(child, options.name);
  return child;
}

export interface RunningTarget {
  url: string;
  /** The server's process (the node process itself: taskset execs it), e.g. to read its memory. */
  pid: number;
  stop(): Promise<void>;
}

/** Starts bench/server.ts for a target and resolves once every worker listens. */
export async function startTarget(
  target: 'latchkey' | 'peer' | 'peer-users' | 'bare' | FloorKind,
  options: { port: number; workers: number; cpus?: string; env: Record<string, string> },
): Promise<RunningTarget> {
  const child = spawnNode('bench/server.ts', [target, String(options.workers)], {
    name: target,
    // BENCH_PROFILE=1: every server writes V8 CPU profiles (one per thread) into .bench/profiles/<target>-<port>/.
    ...(process.env.BENCH_PROFILE ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=.bench/profiles/${target}-${options.port}`] } : {}),
    ...(options.cpus !== undefined ? { cpus: options.cpus } : {}),
    env: { ...options.env, PORT: String(options.port), HOST: LOOPBACK },
  });
  child.stdout?.resume();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${target} did not start within 60 s`)), 60_000);
    child.on('message', (message: { ready?: boolean }) => {
      if (message?.ready) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${target} exited during start-up (${signal ?? `code ${code}`})`));
    });
  });
  return {
    url: `http://${LOOPBACK}:${options.port}`,
    pid: child.pid ?? 0,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs a node script to completion and returns its last stdout line parsed as JSON. */
export async function runJsonChild<T>(script: string, args: string[], options: { name: string; cpus?: string }): Promise<T> {
  const child = spawnNode(script, args, options);
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${options.name} exited with ${code}`);
  const last = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(last) as T;
}
