import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness.js';

/** The browser library as Latchkey serves it over a real socket: versioned, immutable, its SRI hash published. */
describe('browser library route', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true });
  });
  afterAll(async () => server?.close());

  it('serves the built bundle under its version with long-lived caching, open CORS and a matching SRI hash', async () => {
    const published = (await (await fetch(`${server.url}/js/latchkey/10.0.0/integrity.json`)).json()) as { version: string; file: string; integrity: string };
    expect(published).toMatchObject({ version: '10.0.0', file: `${server.url}/js/latchkey/10.0.0/latchkey.min.js` });
    const response = await fetch(published.file);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('content-type')).toContain('text/javascript');
    const script = Buffer.from(await response.arrayBuffer());
    expect(`sha384-${createHash('sha384').update(script).digest('base64')}`).toBe(published.integrity);
    expect(script.toString('utf8')).toContain('latchkey');
  });

  it('answers 404 for another version and 400 for something that is not a version', async () => {
    expect((await fetch(`${server.url}/js/latchkey/9.0.0/latchkey.min.js`)).status).toBe(404);
    expect((await fetch(`${server.url}/js/latchkey/9.0.0/integrity.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/js/latchkey/latest/latchkey.min.js`)).status).toBe(400);
  });
});
