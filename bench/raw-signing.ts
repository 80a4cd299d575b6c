/**
 * Child process of `npm run bench`: the raw RS256 signing rate on one core, the floor of an access token's
 * cost. run.ts starts it pinned to the CPU the servers get. Prints one JSON line:
 * `{nodeCryptoSign, webCryptoSign, inputBytes}` (signatures per second).
 * Usage: node --import tsx bench/raw-signing.ts [seconds per method]
 */
import { generateKeyPairSync, sign, webcrypto } from 'node:crypto';

const seconds = Number(process.argv[2] ?? 3);
const WARMUP_MS = 500;

/** The signing input of a typical client-credentials access token: base64url(header).base64url(claims). */
function jwtSigningInput(): Buffer {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = { alg: 'RS256', typ: 'JWT', kid: 'x'.repeat(43) };
  const iat = Math.floor(Date.now() / 1000);
  const claims = {
    sub: 'bench-admin@clients',
    aud: 'http://127.0.0.1:3000/api/v2/',
    azp: 'bench-admin',
    scope: 'read:clients create:clients update:clients delete:clients read:users create:users read:prompts update:prompts',
    gty: 'client-credentials',
    iss: 'http://127.0.0.1:3000/',
    iat,
    exp: iat + 86_400,
    jti: 'j'.repeat(32),
  };
  return Buffer.from(`${b64(header)}.${b64(claims)}`);
}

/** Runs `once` back to back (one at a time) for `ms` and returns completions per second. */
async function rate(once: () => unknown, ms: number): Promise<number> {
  const warmupEnd = performance.now() + WARMUP_MS;
  while (performance.now() < warmupEnd) await once();
  let count = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    await once();
    count += 1;
    elapsed = performance.now() - start;
  }
  return count / (elapsed / 1000);
}

const input = jwtSigningInput();
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
const cryptoKey = await webcrypto.subtle.importKey('pkcs8', privateKey.export({ type: 'pkcs8', format: 'der' }), algorithm, false, ['sign']);

const nodeCryptoSign = await rate(() => sign('sha256', input, privateKey), seconds * 1000);
// One signature in flight at a time: WebCrypto signs on a libuv pool thread while this thread waits, so the
// process still uses one core's worth of CPU (and run.ts pins it to one core anyway).
const webCryptoSign = await rate(() => webcrypto.subtle.sign(algorithm, cryptoKey, input), seconds * 1000);

process.stdout.write(`${JSON.stringify({ nodeCryptoSign, webCryptoSign, inputBytes: input.length })}\n`);
