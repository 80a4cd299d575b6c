import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** One request a receiver got, as it arrived, and how it ended. */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The status answered; undefined while it is held or when the sender went away first. */
  status?: number;
  /** The sender closed the connection before the answer was written. */
  aborted?: boolean;
}

export interface LogReceiver {
  /** `http://127.0.0.1:<port>` (or https). */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Decides each answer's status; may wait (a held request). Default: 200. */
  respond: (request: ReceivedRequest) => number | Promise<number>;
  /** The most requests to one path that were open at the same time. */
  maxConcurrent(path: string): number;
  /** The requests to `path` the receiver answered 2xx, in the order they arrived. */
  accepted(path: string): ReceivedRequest[];
  close(): Promise<void>;
}

/** A real HTTP(S) server on loopback that records what log streams POST to it. */
export async function startLogReceiver(tls?: { cert: Buffer; key: Buffer }): Promise<LogReceiver> {
  const open = new Map<string, number>();
  const peaks = new Map<string, number>();
  const receiver: LogReceiver = {
    url: '',
    port: 0,
    requests: [],
    respond: () => 200,
    maxConcurrent: (path) => peaks.get(path) ?? 0,
    accepted: (path) => receiver.requests.filter((request) => request.path === path && request.status !== undefined && request.status < 300),
    close: () => Promise.resolve(),
  };
  const handle = (request: http.IncomingMessage, response: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    const path = request.url ?? '/';
    const now = (open.get(path) ?? 0) + 1;
    open.set(path, now);
    peaks.set(path, Math.max(peaks.get(path) ?? 0, now));
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received: ReceivedRequest = { path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      receiver.requests.push(received);
      let answered = false;
      response.on('close', () => {
        open.set(path, (open.get(path) ?? 1) - 1);
        if (!answered) received.aborted = true;
      });
      void Promise.resolve(receiver.respond(received)).then((status) => {
        if (received.aborted || response.destroyed) return;
        answered = true;
        received.status = status;
        response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      });
    });
  };
  const server = tls ? https.createServer({ cert: tls.cert, key: tls.key }, handle) : http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `${tls ? 'https' : 'http'}://127.0.0.1:${receiver.port}`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** An event as streams deliver it. */
export interface Delivered {
  log_id: string;
  data: Record<string, unknown> & { log_id: string; type: string };
}

/** The events in a request's body, read as the sink's format says. */
export function deliveredIn(request: ReceivedRequest, format: 'JSONARRAY' | 'JSONLINES' | 'JSONOBJECT' | 'datadog' | 'splunk'): Delivered[] {
  const lines = () => request.body.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
  switch (format) {
    case 'JSONARRAY':
    case 'datadog':
      return JSON.parse(request.body) as Delivered[];
    case 'JSONOBJECT':
      return (JSON.parse(request.body) as { logs: Delivered[] }).logs;
    case 'JSONLINES':
      return lines() as unknown as Delivered[];
    case 'splunk':
      return lines().map((line) => line.event as Delivered);
  }
}
