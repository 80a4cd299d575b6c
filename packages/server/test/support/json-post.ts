import type { TestServer } from './harness.js';

export interface JsonAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when it is a JSON object, `{}` otherwise (plain-text answers keep `text`). */
  json: Record<string, unknown>;
}

/** A JSON POST over the real socket, as a browser's fetch or a server-side client makes it. */
export async function postJson(server: TestServer, path: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
  } catch {
    json = {};
  }
  return { status: response.status, headers: response.headers, text, json };
}
