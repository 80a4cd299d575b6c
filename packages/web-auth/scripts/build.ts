import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * Builds the browser library: an ES module (`latchkey.esm.js`), a minified UMD script whose global is
 * `latchkey` (`latchkey.min.js`), type declarations, and `integrity.json` (the script's SRI hash). Prints the
 * gzipped size beside the reference library's and fails past the budget (half of it).
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const SIZE_BUDGET = 0.5;

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
const common = { bundle: true, target: 'es2022', platform: 'browser', legalComments: 'none', logLevel: 'warning' } as const;
await build({ ...common, entryPoints: [join(root, 'src/index.ts')], format: 'esm', outfile: join(dist, 'latchkey.esm.js') });
await build({
  ...common,
  entryPoints: [join(root, 'src/bundle.ts')],
  format: 'iife',
  globalName: '__latchkey',
  minify: true,
  outfile: join(dist, 'latchkey.min.js'),
  // UMD: AMD and CommonJS loaders get the namespace; a plain script tag gets the global `latchkey`.
  banner: { js: '(function(r,f){typeof define=="function"&&define.amd?define([],f):typeof module=="object"&&module.exports?module.exports=f():r.latchkey=f()})(typeof self<"u"?self:this,function(){' },
  footer: { js: 'return __latchkey});' },
});
execFileSync(process.execPath, [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });

const script = readFileSync(join(dist, 'latchkey.min.js'));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const integrity = `sha384-${createHash('sha384').update(script).digest('base64')}`;
writeFileSync(join(dist, 'integrity.json'), `${JSON.stringify({ version, file: 'latchkey.min.js', integrity }, null, 2)}\n`);

const ours = gzipSync(script, { level: 9 }).length;
const reference = gzipSync(readFileSync(createRequire(import.meta.url).resolve('auth0-js/dist/auth0.min.js')), { level: 9 }).length;
const ratio = ours / reference;
console.log(`latchkey.min.js ${version}: ${(script.length / 1024).toFixed(1)} KiB, ${(ours / 1024).toFixed(1)} KiB gzipped; reference auth0-js ${(reference / 1024).toFixed(1)} KiB gzipped; ratio ${ratio.toFixed(2)} (budget ${SIZE_BUDGET})`);
console.log(`integrity ${integrity}`);
if (ratio > SIZE_BUDGET) {
  console.error(`the bundle is over its size budget: ${ratio.toFixed(2)} of the reference library, at most ${SIZE_BUDGET}`);
  process.exit(1);
}
