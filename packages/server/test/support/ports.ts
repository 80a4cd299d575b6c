import net from 'node:net';

/**
 * Ports are drawn from below Linux's ephemeral range (32768-60999 by default). A port the kernel hands out for
 * port 0 comes from that range, and so does the local port of every outgoing connection, so one found free there
 * can be taken by a database or Redis connection of a parallel suite before the process meant for it binds it
 * (CI saw `EADDRINUSE`). Here only the suites' own listeners compete, and a drawn port is tried before it is given.
 */
const LOW = 20_000;
const HIGH = 32_000;

function tryListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await tryListen(port)) return port;
  }
  throw new Error(`no free port found between ${LOW} and ${HIGH}`);
}
