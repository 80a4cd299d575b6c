/**
 * The simplest token endpoint, for `npm run bench`: a bare node:http server that reads the form body and answers
 * one freshly signed RS256 JWT of the client-credentials shape, signed as each request arrives, with no routing,
 * validation, client lookup or storage. Loaded exactly like Latchkey and the peer (same CPU, same load
 * generator), it shows what one process reaches when signing is nearly all it does. The "raw sign" rate is
 * measured with the load generator idle; a loaded server signs more slowly than that (the other CPU's load and
 * the server's own network work share the machine, and each lone signature leaves the next request's JavaScript
 * with cold caches; see packages/server/src/crypto/rsa-signer.ts).
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer } from 'node:http';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export async function startBareSigner(host: string, port: number): Promise<void> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const header = b64({ alg: 'RS256', typ: 'JWT', kid: 'bare' });
  const issuer = `http://${host}:${port}/`;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const iat = Math.floor(Date.now() / 1000);
      const claims = { iss: issuer, sub: `${form.get('client_id') ?? ''}@clients`, aud: form.get('audience') ?? '', iat, exp: iat + 86_400, azp: form.get('client_id') ?? '', scope: 'read:things', gty: 'client-credentials', jti: randomBytes(18).toString('base64url') };
      const input = `${header}.${b64(claims)}`;
      const body = JSON.stringify({ access_token: `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`, token_type: 'Bearer', expires_in: 86_400 });
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
}
