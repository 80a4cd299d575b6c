import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * The tenant bundles of test/fixtures/acul (one written with `@auth0/auth0-acul-js`, one with
 * `@auth0/auth0-acul-react`, one with the SDK's multi-factor screen classes), built as a tenant would ship them:
 * one classic script each, loaded by a screen's rendering `head_tags`.
 */
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'acul');
const ENTRIES = { vanilla: join(FIXTURES, 'vanilla.ts'), react: join(FIXTURES, 'react.tsx'), mfa: join(FIXTURES, 'mfa.ts') } as const;
type Flavour = keyof typeof ENTRIES;

/** The packages whose code ends up in the bundles: a new version of any of them means a new build. */
const BUNDLED_PACKAGES = ['@auth0/auth0-acul-js', '@auth0/auth0-acul-react', 'react', 'react-dom', 'esbuild'];

/**
 * An installed package's version, found as Node finds the package (the nearest node_modules upwards): these
 * packages' `exports` maps hide their package.json from require.resolve.
 */
function installedVersion(name: string): string {
  for (let dir = FIXTURES; ; dir = dirname(dir)) {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
    if (dirname(dir) === dir) throw new Error(`${name} is not installed`);
  }
}

/**
 * Where this build's output lives: a folder under the system temp dir named after a hash of the sources and the
 * bundled packages' versions, so every suite of a test run (each runs in its own process) builds at most once,
 * and a changed source never reuses a stale bundle.
 */
function cacheDir(): string {
  const hash = createHash('sha256');
  for (const entry of Object.values(ENTRIES)) hash.update(readFileSync(entry));
  for (const name of BUNDLED_PACKAGES) hash.update(`${name}@${installedVersion(name)}\n`);
  return join(tmpdir(), `latchkey-acul-bundles-${hash.digest('hex').slice(0, 16)}`);
}

async function buildOne(entry: string): Promise<Uint8Array> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: false,
    jsx: 'automatic',
    // React and the SDK pick their production code paths by this, as a tenant's production build would.
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error(`esbuild produced no output for ${entry}`);
  return output.contents;
}

let building: Promise<Record<Flavour, string>> | undefined;

/** Builds both bundles (or reuses this run's build) and gives each one's file path. */
export function buildAculBundles(): Promise<Record<Flavour, string>> {
  building ??= (async () => {
    const dir = cacheDir();
    const files = { vanilla: join(dir, 'vanilla.js'), react: join(dir, 'react.js'), mfa: join(dir, 'mfa.js') };
    mkdirSync(dir, { recursive: true });
    for (const flavour of Object.keys(ENTRIES) as Flavour[]) {
      if (existsSync(files[flavour])) continue;
      // Written under a private name and renamed, so a suite in another process never reads half a file.
      const partial = `${files[flavour]}.${process.pid}.partial`;
      writeFileSync(partial, await buildOne(ENTRIES[flavour]));
      renameSync(partial, files[flavour]);
    }
    return files;
  })();
  return building;
}

export interface BundleOrigin {
  /** `http://127.0.0.1:<port>`: another origin than the server under test, as a tenant's CDN is. */
  origin: string;
  vanillaUrl: string;
  reactUrl: string;
  mfaUrl: string;
  close(): Promise<void>;
}

/** Serves the built bundles (`/vanilla.js`, `/react.js`, `/mfa.js`) from a local HTTP server on a random port. */
export async function startBundleOrigin(): Promise<BundleOrigin> {
  const files = await buildAculBundles();
  const scripts = new Map<string, Buffer>([
    ['/vanilla.js', readFileSync(files.vanilla)],
    ['/react.js', readFileSync(files.react)],
    ['/mfa.js', readFileSync(files.mfa)],
  ]);
  const server: Server = createServer((request, response) => {
    const script = scripts.get(new URL(request.url ?? '/', 'http://bundles').pathname);
    const headers = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' };
    if (!script || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
      response.end('not found');
      return;
    }
    response.writeHead(200, { ...headers, 'content-type': 'text/javascript; charset=utf-8', 'content-length': script.length });
    response.end(request.method === 'HEAD' ? undefined : script);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the bundle origin has no address');
  const origin = `http://127.0.0.1:${address.port}`;
  return {
    origin,
    vanillaUrl: `${origin}/vanilla.js`,
    reactUrl: `${origin}/react.js`,
    mfaUrl: `${origin}/mfa.js`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A screen rendering config's `head_tags` entry that loads one script, as a tenant configures its bundle. */
export interface ScriptHeadTag {
  tag: 'script';
  attributes: { src: string; defer: boolean };
}

/** The rendering config's `head_tags` array for a tenant bundle at `url`. */
export function headTagsFor(url: string): ScriptHeadTag[] {
  return [{ tag: 'script', attributes: { src: url, defer: true } }];
}
