import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

// The console's budget for the JavaScript of its first load (issue 30): the build fails past it. Chunks loaded
// later by a dynamic import (the code editor) are printed apart and do not count against it.
const BUDGET_BYTES = 250 * 1024;
const dist = join(import.meta.dirname, '..', 'dist');

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}
const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;

/** The entry chunks and every chunk they import statically: what the browser fetches before the console starts. */
function initialChunks(): Set<string> {
  const initial = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || initial.has(key)) return;
    initial.add(key);
    chunk.imports?.forEach(visit);
  };
  Object.entries(manifest)
    .filter(([, chunk]) => chunk.isEntry)
    .forEach(([key]) => visit(key));
  return initial;
}

const gzipped = (file: string) => gzipSync(readFileSync(join(dist, file))).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const initial = initialChunks();
const scripts = Object.entries(manifest).filter(([, chunk]) => chunk.file.endsWith('.js'));
const initialBytes = scripts.filter(([key]) => initial.has(key)).reduce((sum, [, chunk]) => sum + gzipped(chunk.file), 0);
console.log(`console: initial JavaScript ${initial.size} script(s), ${kb(initialBytes)} gzipped (budget ${BUDGET_BYTES / 1024} KB)`);
for (const [, chunk] of scripts.filter(([key]) => !initial.has(key))) console.log(`console: lazy ${chunk.file} ${kb(gzipped(chunk.file))} gzipped`);
if (initialBytes > BUDGET_BYTES) {
  console.error('console: the initial JavaScript is over its budget');
  process.exit(1);
}
