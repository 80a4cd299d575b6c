import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, TEST_SECRET } from './harness.js';
import { freePort } from './ports.js';
import { startServeProcess, type Running } from './processes.js';

/**
 * A `latchkey serve` process for outage tests (a crash must end that process, not the test runner), and the
 * requests they probe it with. Every request is abandoned after HANG_GUARD_MS so that a server that hangs fails
 * the test with a clear message instead of timing it out; nothing asserts how fast an answer is.
 */

export const HANG_GUARD_MS = 15_000;

/** Migrating a fresh PostgreSQL schema while other suites load the machine can take a while. */
const STARTUP_TIMEOUT_MS = 90_000;

export interface OutageNode {
  url: string;
  issuer: string;
  /** LATCHKEY_DATA_DIR; the SQLite database, unless `env` names another, is `latchkey.db` in it. */
  dataDir: string;
  process: Running;
  /** True while the process has not exited. */
  alive(): boolean;
  stop(): Promise<void>;
}

/** Starts a node with the admin application, no demo, and whatever `env` adds (DATABASE_URL, REDIS_URL, limits). */
export async function startOutageNode(env: Record<string, string>): Promise<OutageNode> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-outage-'));
  const issuer = `http://127.0.0.1:${port}`;
  const process = await startServeProcess({
    PORT: String(port),
    LATCHKEY_ISSUER: issuer,
    DATABASE_URL: `sqlite:${join(dataDir, 'latchkey.db')}`,
    LATCHKEY_DATA_DIR: dataDir,
    LATCHKEY_SECRET: TEST_SECRET,
    LATCHKEY_ADMIN_CLIENT_ID: ADMIN_CLIENT_ID,
    LATCHKEY_ADMIN_CLIENT_SECRET: ADMIN_CLIENT_SECRET,
    LATCHKEY_TENANT: `outage-${Math.random().toString(36).slice(2, 10)}`,
    LATCHKEY_DEMO: 'off',
    LATCHKEY_MGMT_RATE_LIMIT: '100000/s',
    ...env,
  }, STARTUP_TIMEOUT_MS);
  return {
    url: issuer,
    issuer,
    dataDir,
    process,
    alive: () => process.child.exitCode === null && process.child.signalCode === null,
    async stop() {
      await process.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

/** One request to the node; throws when nothing answers within HANG_GUARD_MS. */
export async function call(node: OutageNode, path: string, init: RequestInit = {}): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(`${node.url}${path}`, { redirect: 'manual', ...init, signal: AbortSignal.timeout(HANG_GUARD_MS) });
  } catch (error) {
    const alive = node.alive() ? 'still running' : `exited:\n${node.process.output()}`;
    throw new Error(`${init.method ?? 'GET'} ${path}: no answer (${(error as Error).name}); the server is ${alive}`);
  }
  const text = await response.text();
  let json: Record<string, unknown> = {};
  if ((response.headers.get('content-type') ?? '').includes('application/json')) json = JSON.parse(text) as Record<string, unknown>;
  return { status: response.status, headers: response.headers, text, json };
}

/** Client credentials for the Management API: the Authentication API's most common request. */
export function requestToken(node: OutageNode): Promise<Answer> {
  return call(node, '/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: `${node.issuer}/api/v2/` }),
  });
}

export async function managementToken(node: OutageNode): Promise<string> {
  const answer = await requestToken(node);
  expect(answer.status, answer.text).toBe(200);
  return String(answer.json.access_token);
}

export function management(node: OutageNode, token: string, method: string, path: string, body?: unknown): Promise<Answer> {
  return call(node, `/api/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The Authentication API's 503 during an outage. */
export function expectAuthenticationUnavailable(answer: Answer) {
  expect(answer.status, answer.text).toBe(503);
  expect(answer.json).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
  expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
}

/** The Management API's 503 during an outage. */
export function expectManagementUnavailable(answer: Answer) {
  expect(answer.status, answer.text).toBe(503);
  expect(answer.json).toEqual({ statusCode: 503, error: 'Service Unavailable', message: expect.any(String), errorCode: 'temporarily_unavailable' });
  expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
}

/** A hosted page's 503 during an outage: an HTML page, not JSON. */
export function expectPageUnavailable(answer: Answer) {
  expect(answer.status, answer.text).toBe(503);
  expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
  expect(answer.text).toContain('Temporarily unavailable');
}

/**
 * Repeats `attempt` until it returns true (the service is back), at most `tries` times, a tenth of a second apart:
 * a recovery is seen within 100 ms of happening, and the default still gives it 20 s.
 */
export async function eventually(attempt: () => Promise<boolean>, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i += 1) {
    if (await attempt()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not recovered after ${tries} attempts`);
}
