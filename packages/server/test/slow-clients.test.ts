import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';

/** Far beyond the configured timeouts (1-2 s) and far below Node's and Fastify's own (60 s, 72 s, 300 s). */
const WAIT_LIMIT_MS = 20_000;

/** A raw connection that records what the server sends and when it closes. */
function connect(server: TestServer) {
  const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<'closed'>((resolve) => socket.once('close', () => resolve('closed')));
  const ready = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return {
    socket,
    ready,
    received: () => received,
    /** 'closed' once the server closed the connection, 'open' if it is still open after WAIT_LIMIT_MS. */
    outcome: () => Promise.race([closed, new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), WAIT_LIMIT_MS))]),
  };
}

/** Writes `chunks` one at a time, `gapMs` apart, while the socket is writable (a client trickling its request). */
function trickle(socket: net.Socket, chunks: string[], gapMs: number): void {
  const next = (index: number) => {
    if (index >= chunks.length || socket.destroyed) return;
    socket.write(chunks[index] ?? '');
    setTimeout(() => next(index + 1), gapMs);
  };
  next(0);
}

describe('slow clients over a real socket', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      dialect: 'sqlite',
      listen: true,
      env: { LATCHKEY_HEADERS_TIMEOUT_SECONDS: '1', LATCHKEY_REQUEST_TIMEOUT_SECONDS: '2', LATCHKEY_KEEP_ALIVE_TIMEOUT_SECONDS: '1' },
    });
  });
  afterAll(async () => {
    for (const connection of open) connection.destroy();
    await server?.close();
  });
  const open: net.Socket[] = [];
  const tracked = () => {
    const connection = connect(server);
    open.push(connection.socket);
    return connection;
  };

  it('closes a connection whose headers arrive too slowly, with a 408', async () => {
    const client = tracked();
    await client.ready;
    // One header line every 300 ms for a minute: it never finishes its headers.
    trickle(client.socket, ['GET /.well-known/openid-configuration HTTP/1.1\r\nHost: localhost\r\n', ...Array.from({ length: 200 }, (_, i) => `X-Slow-${i}: x\r\n`)], 300);
    expect(await client.outcome()).toBe('closed');
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a connection that never sends anything', async () => {
    const client = tracked();
    await client.ready;
    expect(await client.outcome()).toBe('closed');
  });

  it('closes a connection whose body arrives too slowly, with a 408', async () => {
    const client = tracked();
    await client.ready;
    const head = 'POST /oauth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
    // The headers at once, then a byte of the body every 300 ms: the whole request would take five minutes.
    trickle(client.socket, [head, ...Array.from({ length: 1000 }, () => ' ')], 300);
    expect(await client.outcome()).toBe('closed');
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes an idle keep-alive connection after its timeout, and says so in Keep-Alive', async () => {
    const client = tracked();
    await client.ready;
    client.socket.write('GET /.well-known/openid-configuration HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    expect(await client.outcome()).toBe('closed');
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(client.received()).toMatch(/\r\nKeep-Alive: timeout=1\r\n/i);
  });

  it('still serves a client that sends its request at a normal pace', async () => {
    const response = await fetch(`${server.url}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
  });
});
