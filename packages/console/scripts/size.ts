import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

// The console's budget for the JavaScript of its first load (issue 30): the build fails past it.
const BUDGET_BYTES = 250 * 1024;
const assets = join(import.meta.dirname, '..', 'dist', 'assets');
const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
const gzipped = scripts.reduce((sum, name) => sum + gzipSync(readFileSync(join(assets, name))).length, 0);
console.log(`console: ${scripts.length} script(s), ${(gzipped / 1024).toFixed(1)} KB gzipped (budget ${BUDGET_BYTES / 1024} KB)`);
if (gzipped > BUDGET_BYTES) {
  console.error('console: the initial JavaScript is over its budget');
  process.exit(1);
}
