import { createServer, type Server } from 'node:http';

/** An application's callback page on a real socket: records every URL it is sent to and says "done". */
export async function startCallbackServer(): Promise<{ origin: string; hits: URL[]; close(): Promise<void> }> {
  const hits: URL[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', `http://${request.headers.host}`);
    hits.push(url);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!DOCTYPE html><title>callback</title><p id="done">done</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
