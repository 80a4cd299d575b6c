import { requestError, type Callback } from './errors.js';

export interface RequestOptions {
  method: 'GET' | 'POST' | 'PATCH';
  body?: unknown;
  token?: string;
  /** Send and accept cookies cross-site (cross-origin login needs our session cookie). */
  withCredentials?: boolean;
}

export interface Answer {
  status: number;
  statusText: string;
  /** Parsed JSON, or the text for text answers. */
  body: unknown;
}

/** One HTTP call with `fetch`: JSON out, JSON or text back. Network failures reject. */
export async function request(url: string, options: RequestOptions): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(url, {
    method: options.method,
    headers,
    credentials: options.withCredentials ? 'include' : 'same-origin',
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  const isJson = (response.headers.get('content-type') ?? '').includes('json');
  let body: unknown = text;
  if (isJson && text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, statusText: response.statusText, body };
}

/**
 * Runs a call and hands its outcome to a node-style callback: a 2xx body (shaped by `result`), or the library's
 * error object for an error status or a network failure.
 */
export function respond<T>(
  call: Promise<Answer>,
  cb: Callback<T>,
  result: (body: unknown) => T,
  options: { legacyNames?: boolean } = {},
): void {
  call.then(
    (answer) => {
      if (answer.status >= 200 && answer.status < 300) cb(null, result(answer.body));
      else cb(requestError({ status: answer.status, body: answer.body }, answer.body, answer, options));
    },
    (failure: unknown) => cb(requestError(failure, { error: 'request_error', error_description: String(failure) }, undefined, options)),
  );
}
