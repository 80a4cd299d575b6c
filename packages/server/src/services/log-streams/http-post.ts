import http from 'node:http';
import https from 'node:https';

/** One POST to a sink. */
export interface SinkRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
  /** false: accept any TLS certificate (Splunk's `splunkSecure: false`, for a collector with a self-signed one). */
  verifyTls: boolean;
}

/** Bytes of a sink's answer read at most (only its status matters; a larger body is not waited for). */
const ANSWER_BYTES = 64 * 1024;

/**
 * POSTs to sinks with node's http/https (not fetch: Splunk's `splunkSecure: false` needs a TLS option fetch does
 * not take without another dependency). Redirects are not followed: a 3xx is a failed delivery. Connections are
 * kept alive per origin; `close` ends them all, and aborts requests in flight.
 */
export function sinkPoster(options: { timeoutMs: number }) {
  const agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 4 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 4 }),
    httpsUnverified: new https.Agent({ keepAlive: true, maxSockets: 4, rejectUnauthorized: false }),
  };
  const inFlight = new Set<http.ClientRequest>();

  /** Resolves with the answer's status; rejects on a network error or after `timeoutMs` (the whole exchange). */
  function post(request: SinkRequest): Promise<number> {
    const secure = request.url.protocol === 'https:';
    const agent = secure ? (request.verifyTls ? agents.https : agents.httpsUnverified) : agents.http;
    const send = secure ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const body = Buffer.from(request.body, 'utf8');
      const outgoing = send(request.url, {
        method: 'POST',
        agent,
        headers: { ...request.headers, 'content-length': String(body.length) },
      });
      inFlight.add(outgoing);
      const timer = setTimeout(() => outgoing.destroy(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
      const done = () => {
        clearTimeout(timer);
        inFlight.delete(outgoing);
      };
      outgoing.on('response', (answer) => {
        let read = 0;
        answer.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > ANSWER_BYTES) answer.destroy();
        });
        const status = answer.statusCode ?? 0;
        answer.on('end', () => {
          done();
          resolve(status);
        });
        answer.on('close', () => {
          done();
          resolve(status);
        });
        answer.on('error', () => {
          done();
          resolve(status);
        });
      });
      outgoing.on('error', (error) => {
        done();
        reject(error);
      });
      outgoing.end(body);
    });
  }

  return {
    post,
    close() {
      for (const request of inFlight) request.destroy(new Error('log stream delivery stopped'));
      for (const agent of Object.values(agents)) agent.destroy();
    },
  };
}

export type SinkPoster = ReturnType<typeof sinkPoster>;
