// Runs npm scripts at the same time and fails if any fails (`npm test` runs its build, type check and lint so).
//
// Each of them is one process on one core: one after the other they took 6, 45 and 22 s of the two-core machines
// that run the suite, side by side the type check alone sets the pace. Each script's output is printed whole when
// it ends, so that two never interleave.
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: node --import tsx scripts/side-by-side.ts <npm script>...');
  process.exit(2);
}

function run(name: string): Promise<{ name: string; code: number; output: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => resolve({ name, code: 1, output: `${output}${error.message}\n`, seconds: 0 }));
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), output, seconds: (Date.now() - started) / 1000 }));
  });
}

const results = await Promise.all(
  names.map(async (name) => {
    const result = await run(name);
    process.stdout.write(`\n> ${result.name} (${result.seconds.toFixed(1)} s)${result.code === 0 ? '' : `: failed with exit code ${result.code}`}\n${result.output}`);
    return result;
  }),
);
const failed = results.filter((result) => result.code !== 0).map((result) => result.name);
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exit(1);
}
