import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { ActionsEgress } from '../../config/actions-egress.js';
import { egressRefusal } from './egress.js';

/** A tenant's `fetch` request as the sandbox hands it over (plain data, already validated by the caller). */
export interface OutboundRequest {
  url: string;
  method: string;
  headers: [string, string][];
  body: string | null;
  redirect: 'follow' | 'manual' | 'error';
}

export interface OutboundResponse {
  status: number;
  statusText: string;
  url: string;
  redirected: boolean;
  headers: [string, string][];
  body: string;
}

export interface OutboundLimits {
  egress: ActionsEgress;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Aborted when the execution ends, so that no request outlives it. */
  signal: AbortSignal;
}

/** A failure the tenant's code sees as `fetch`'s TypeError; the message says what happened, never our internals. */
export class OutboundFetchError extends Error {}

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Resolves like the system resolver, then refuses the connection if any resolved address is outside the egress
 * policy. Checking here, where the socket gets its address, leaves no window between a check and a second
 * resolution (DNS rebinding); refusing on any forbidden address keeps a name with mixed records from choosing.
 */
function checkedLookup(egress: ActionsEgress): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refusal = addresses.map(({ address }) => egressRefusal(address, egress)).find((reason) => reason !== undefined);
      if (refusal !== undefined) return callback(new OutboundFetchError(`${hostname}: ${refusal}`), '', 0);
      const first = addresses[0];
      if (first === undefined) return callback(new OutboundFetchError(`${hostname} has no address`), '', 0);
      // With `all` (Node's happy-eyeballs connect asks for it) the callback takes the list.
      if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * The pairs as Node's header object (a raw array would leave out the Host header Node adds to an object);
 * repeated names are joined with ", " as the Fetch standard combines them.
 */
function headerObject(pairs: [string, string][]): Record<string, string> {
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
  }
  return headers;
}

/** One request without following redirects. */
function requestOnce(url: URL, method: string, headers: [string, string][], body: string | null, limits: OutboundLimits, signal: AbortSignal) {
  return new Promise<{ status: number; statusText: string; headers: [string, string][]; body: string }>((resolve, reject) => {
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    // Node connects to an IP literal without calling `lookup`: check it here.
    if (isIP(hostname) !== 0) {
      const refusal = egressRefusal(hostname, limits.egress);
      if (refusal !== undefined) return reject(new OutboundFetchError(refusal));
    }
    const client = url.protocol === 'https:' ? https : http;
    let outgoing: http.ClientRequest;
    try {
      outgoing = client.request(url, { method, headers: headerObject(headers), lookup: checkedLookup(limits.egress), signal });
    } catch (error) {
      return reject(new OutboundFetchError(`invalid request: ${(error as Error).message}`));
    }
    outgoing.on('error', reject);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxResponseBytes) {
          incoming.destroy(new OutboundFetchError(`the response is larger than ${limits.maxResponseBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      incoming.on('error', reject);
      incoming.on('end', () => {
        const headers: [string, string][] = [];
        for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) headers.push([incoming.rawHeaders[i] ?? '', incoming.rawHeaders[i + 1] ?? '']);
        resolve({ status: incoming.statusCode ?? 0, statusText: incoming.statusMessage ?? '', headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    outgoing.end(body ?? undefined);
  });
}

/**
 * The host side of a tenant's `fetch`: http and https only, every hop checked against the egress policy, a
 * timeout over the whole exchange (redirects included), a bounded response body decoded as UTF-8 text.
 */
export async function outboundFetch(request: OutboundRequest, limits: OutboundLimits): Promise<OutboundResponse> {
  const signal = AbortSignal.any([limits.signal, AbortSignal.timeout(limits.timeoutMs)]);
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new OutboundFetchError(`invalid URL: ${request.url}`);
  }
  let method = request.method;
  let headers = request.headers;
  let body = request.body;
  try {
    for (let hop = 0; ; hop += 1) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundFetchError(`unsupported protocol ${url.protocol} (http and https only)`);
      const answer = await requestOnce(url, method, headers, body, limits, signal);
      const location = answer.headers.find(([name]) => name.toLowerCase() === 'location')?.[1];
      if (!REDIRECT_STATUSES.has(answer.status) || location === undefined || request.redirect === 'manual') {
        return { ...answer, url: url.href, redirected: hop > 0 };
      }
      if (request.redirect === 'error') throw new OutboundFetchError(`redirected to ${location} and the request's redirect mode is "error"`);
      if (hop === MAX_REDIRECTS) throw new OutboundFetchError(`more than ${MAX_REDIRECTS} redirects`);
      const next = new URL(location, url);
      // As the Fetch standard says: 303, and 301/302 after a POST, continue as a GET without a body (and without
      // the headers that described it); credentials do not follow the request to another origin.
      if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
        method = 'GET';
        body = null;
        headers = headers.filter(([name]) => !/^content-/i.test(name));
      }
      if (next.origin !== url.origin) headers = headers.filter(([name]) => !/^(authorization|cookie|proxy-authorization)$/i.test(name));
      url = next;
    }
  } catch (error) {
    if (limits.signal.aborted) throw new OutboundFetchError('the execution ended before the response arrived');
    if (signal.aborted) throw new OutboundFetchError(`no response within ${limits.timeoutMs} ms`);
    if (error instanceof OutboundFetchError) throw error;
    throw new OutboundFetchError((error as Error).message);
  }
}

const HTTP_METHOD = /^[A-Z]{1,16}$/;
const REDIRECT_MODES = new Set(['follow', 'manual', 'error']);

/** The sandbox's request (tenant-shaped plain data) as an OutboundRequest, or what is wrong with it. */
export function readOutboundRequest(raw: unknown): OutboundRequest | string {
  if (typeof raw !== 'object' || raw === null) return 'not a request';
  const { url, method, headers, body, redirect } = raw as Record<string, unknown>;
  if (typeof url !== 'string') return 'the URL must be a string';
  if (typeof method !== 'string' || !HTTP_METHOD.test(method)) return `invalid method ${String(method)}`;
  if (!Array.isArray(headers) || !headers.every((pair) => Array.isArray(pair) && pair.length === 2 && pair.every((part) => typeof part === 'string'))) {
    return 'headers must be [name, value] pairs of strings';
  }
  if (body !== null && typeof body !== 'string') return 'the body must be a string';
  if (typeof redirect !== 'string' || !REDIRECT_MODES.has(redirect)) return `invalid redirect mode ${String(redirect)}`;
  if ((method === 'GET' || method === 'HEAD') && body !== null) return `a ${method} request cannot have a body`;
  return { url, method, headers: headers as [string, string][], body, redirect: redirect as OutboundRequest['redirect'] };
}
