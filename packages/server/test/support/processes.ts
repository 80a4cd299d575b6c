import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../bin/latchkey.js', import.meta.url));

export interface Running {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * Starts `latchkey serve` as a real process and waits until it says it listens. `cpus` (a taskset list such as
 * "0") pins it, as a deployment on one CPU is.
 */
export async function startServeProcess(env: Record<string, string>, timeoutMs = 30_000, cpus?: string): Promise<Running> {
  const [command, ...args] = cpus === undefined ? [process.execPath, CLI, 'serve'] : ['taskset', '-c', cpus, process.execPath, CLI, 'serve'];
  const child = spawn(command as string, args, { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`latchkey did not start:\n${output}`)), timeoutMs);
    const check = () => {
      if (output.includes('Latchkey is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`latchkey exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs a CLI command to completion. */
export function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}
