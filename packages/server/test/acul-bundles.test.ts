import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headTagsFor, startBundleOrigin, type BundleOrigin } from './support/acul-bundles.js';
import { launchChromium } from './support/chromium.js';

/**
 * The ACUL test harness on its own, without Latchkey: both tenant bundles load in Chromium on a page that sets a
 * fake `window.universal_login_context` (the platform's shape) before the bundle's head tag, render the screen
 * through the SDK, and submit through the SDK's own form post to the page's URL. The end-to-end tests rely on
 * exactly this; a failure here is the harness's, not the server's.
 */

const SCREEN_PATH = '/u/login/identifier?state=fake-state-1';

const DB_CONNECTION = {
  name: 'Username-Password-Authentication',
  strategy: 'auth0',
  options: { signup_enabled: true, forgot_password_enabled: true, authentication_methods: { password: { enabled: true }, passkey: { enabled: false } } },
};

/** A context as the platform sends one (snake_case keys; every key the SDK dereferences is present). */
function fakeContext(prompt: string, screen: Record<string, unknown> & { name: string }, transaction: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client: { id: 'client-1', name: 'Harness App' },
    organization: { id: 'org-1', name: 'harness-org', usage: 'allow' },
    prompt: { name: prompt },
    screen,
    tenant: { name: 'harness', enabled_locales: ['en'] },
    transaction: { state: 'fake-state-1', locale: 'en', connection: DB_CONNECTION, ...transaction },
    user: { id: '' },
  };
}

function loginIdContext(): Record<string, unknown> {
  return fakeContext(
    'login-id',
    {
      name: 'login-id',
      texts: { title: 'Welcome', buttonText: 'Continue' },
      links: { signup: '/u/signup/identifier?state=fake-state-1', reset_password: '/u/login/password-reset-start/Username-Password-Authentication?state=fake-state-1' },
      data: { username: 'prefilled@example.com' },
    },
    { errors: [{ code: 'invalid-email-format', field: 'username', message: 'Email is not valid' }] },
  );
}

const LINKS = { signup: '/u/signup?state=fake-state-1', reset_password: '/u/reset?state=fake-state-1', edit_identifier: '/u/login/identifier?state=fake-state-1', login: '/u/login?state=fake-state-1' };

/** Browser-capability fields that login-id, login-password and signup-id add to their posts. */
const CAPABILITIES = ['js-available', 'is-brave', 'webauthn-available', 'webauthn-platform-available', 'allow-passkeys'];

/**
 * One screen of the plain-SDK bundle: its context, what the test types, the button it presses, and the form the
 * SDK then posts (field names in order; `state` and `acul-sdk` always end it).
 */
interface ScreenCase {
  prompt: string;
  screen: Record<string, unknown> & { name: string };
  links: string[];
  fill: Record<string, string>;
  press?: string;
  posted?: Record<string, string>;
  extraFields?: string[];
}

const SCREEN_CASES: ScreenCase[] = [
  {
    prompt: 'login-password',
    screen: { name: 'login-password', data: { username: 'jane@example.com' }, links: LINKS },
    links: ['signup-link', 'reset-password-link', 'edit-identifier-link'],
    fill: { password: 'pw-1' },
    posted: { username: 'jane@example.com', password: 'pw-1' },
    extraFields: CAPABILITIES,
  },
  {
    prompt: 'login',
    screen: { name: 'login', links: LINKS },
    links: ['signup-link', 'reset-password-link'],
    fill: { username: 'jane@example.com', password: 'pw-1' },
    posted: { username: 'jane@example.com', password: 'pw-1', action: 'default' },
  },
  {
    prompt: 'login-passwordless',
    screen: { name: 'login-passwordless-email-code', data: { email: 'jane@example.com' }, links: LINKS },
    links: ['signup-link', 'reset-password-link', 'edit-identifier-link'],
    fill: { code: '123456' },
    posted: { code: '123456' },
  },
  {
    prompt: 'signup-id',
    screen: { name: 'signup-id', links: LINKS },
    links: ['login-link'],
    fill: { email: 'new@example.com' },
    posted: { email: 'new@example.com' },
    extraFields: CAPABILITIES,
  },
  {
    prompt: 'signup-password',
    screen: { name: 'signup-password', data: { email: 'new@example.com' }, links: LINKS },
    links: ['login-link', 'edit-identifier-link'],
    fill: { password: 'pw-1' },
    posted: { email: 'new@example.com', password: 'pw-1' },
  },
  {
    prompt: 'signup',
    screen: { name: 'signup', links: LINKS },
    links: ['login-link'],
    fill: { email: 'new@example.com', password: 'pw-1' },
    posted: { email: 'new@example.com', password: 'pw-1' },
  },
  {
    prompt: 'reset-password',
    screen: { name: 'reset-password-request' },
    links: [],
    fill: { username: 'jane@example.com' },
    // Without flexible identifiers on the connection the SDK renames `username` to `email`.
    posted: { email: 'jane@example.com' },
  },
  { prompt: 'reset-password', screen: { name: 'reset-password-email', data: { email: 'jane@example.com' } }, links: [], fill: {}, press: '#resend', posted: { action: 'resend-email-action' } },
  {
    prompt: 'reset-password',
    screen: { name: 'reset-password' },
    links: [],
    fill: { 'new-password': 'pw-2', 'confirm-password': 'pw-2' },
    posted: { 'password-reset': 'pw-2', 're-enter-password': 'pw-2' },
  },
  { prompt: 'reset-password', screen: { name: 'reset-password-success' }, links: [], fill: {} },
];

interface RecordedPost {
  url: string;
  contentType: string | undefined;
  fields: [string, string][];
}

/** A stand-in for the hosted login page: the context script, then the tenant's head tags, and an empty body. */
async function startFakeLoginPage(bundleUrl: string, context = loginIdContext()): Promise<{ origin: string; posts: RecordedPost[]; close(): Promise<void> }> {
  const posts: RecordedPost[] = [];
  const [tag] = headTagsFor(bundleUrl);
  const head = `<script>window.universal_login_context = ${JSON.stringify(context).replace(/</g, '\\u003c')};</script><script src="${tag?.attributes.src}" defer></script>`;
  const server: Server = createServer((request, response) => {
    if (request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        posts.push({ url: request.url ?? '', contentType: request.headers['content-type'], fields: [...new URLSearchParams(Buffer.concat(chunks).toString('utf8'))] });
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end('<!DOCTYPE html><title>posted</title><p id="posted">posted</p>');
      });
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>login</title>${head}</head><body></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    posts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('ACUL tenant bundles (harness self-check)', () => {
  let bundles: BundleOrigin;
  let browser: Browser;

  beforeAll(async () => {
    bundles = await startBundleOrigin();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await bundles?.close();
  });

  async function open(bundleUrl: string, context?: Record<string, unknown>): Promise<{ page: Page; site: Awaited<ReturnType<typeof startFakeLoginPage>> }> {
    // Every screen is served at one URL: the SDK posts to whatever the current URL is.
    const site = await startFakeLoginPage(bundleUrl, context);
    const page = await browser.newPage();
    try {
      await page.goto(`${site.origin}${SCREEN_PATH}`);
      await page.waitForSelector('body[data-acul-ready]');
      const fatal = await page.$('#acul-fatal');
      expect(await page.getAttribute('body', 'data-acul-ready'), (await fatal?.textContent()) ?? '').toBe('true');
      return { page, site };
    } catch (error) {
      await page.close();
      await site.close();
      throw error;
    }
  }

  /** Types a username, submits, and gives the one form post that reached the page's own URL. */
  async function submitUsername(page: Page, site: { posts: RecordedPost[] }): Promise<RecordedPost> {
    await page.fill('#username', 'jane@example.com');
    await Promise.all([page.waitForSelector('#posted'), page.click('#submit')]);
    expect(site.posts).toHaveLength(1);
    const [post] = site.posts;
    if (!post) throw new Error('no post');
    return post;
  }

  it('headTagsFor gives the rendering config entry for a deferred script', () => {
    expect(headTagsFor('https://cdn.example/b.js')).toEqual([{ tag: 'script', attributes: { src: 'https://cdn.example/b.js', defer: true } }]);
  });

  it('serves the bundles cross-origin as JavaScript', async () => {
    for (const url of [bundles.vanillaUrl, bundles.reactUrl]) {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect((await response.text()).length).toBeGreaterThan(1000);
    }
  });

  it('the plain-SDK bundle renders login-id from the context and posts the SDK form to the page URL', async () => {
    const { page, site } = await open(bundles.vanillaUrl);
    try {
      expect(await page.textContent('#acul-screen')).toBe('login-id');
      expect(JSON.parse((await page.textContent('#acul-errors')) ?? '')).toEqual([{ code: 'invalid-email-format', field: 'username', message: 'Email is not valid' }]);
      expect(JSON.parse((await page.textContent('#acul-texts')) ?? '')).toEqual({ title: 'Welcome', buttonText: 'Continue' });
      expect(await page.getAttribute('#signup-link', 'href')).toBe('/u/signup/identifier?state=fake-state-1');
      expect(await page.getAttribute('#reset-password-link', 'href')).toBe('/u/login/password-reset-start/Username-Password-Authentication?state=fake-state-1');
      expect(await page.$('#login-link')).toBeNull();

      const post = await submitUsername(page, site);
      expect(post.url).toBe(SCREEN_PATH);
      expect(post.contentType).toBe('application/x-www-form-urlencoded');
      const fields = Object.fromEntries(post.fields);
      expect(fields).toMatchObject({ username: 'jane@example.com', state: 'fake-state-1', 'acul-sdk': '@auth0/auth0-acul-js@1.8.0', 'js-available': 'true' });
      for (const capability of ['is-brave', 'webauthn-available', 'webauthn-platform-available', 'allow-passkeys']) {
        expect(['true', 'false']).toContain(fields[capability]);
      }
      expect(post.fields.map(([name]) => name).at(-1)).toBe('acul-sdk');
      expect(fields.action).toBeUndefined();
    } finally {
      await page.close();
      await site.close();
    }
  });

  it('the React bundle renders login-id through the wrapper hooks and posts the same form', async () => {
    const { page, site } = await open(bundles.reactUrl);
    try {
      expect(await page.getAttribute('body', 'data-acul-flavour')).toBe('react');
      expect(await page.textContent('#acul-screen')).toBe('login-id');
      expect(JSON.parse((await page.textContent('#acul-errors')) ?? '')).toEqual([{ code: 'invalid-email-format', field: 'username', message: 'Email is not valid' }]);
      expect(await page.getAttribute('#signup-link', 'href')).toBe('/u/signup/identifier?state=fake-state-1');
      // The wrapper's useErrors() seeds itself from the context in an effect, after the first render.
      await page.waitForFunction(() => document.getElementById('acul-hook-errors')?.textContent !== '[]');
      expect(JSON.parse((await page.textContent('#acul-hook-errors')) ?? '')).toEqual([{ code: 'invalid-email-format', field: 'username', message: 'Email is not valid' }]);

      const post = await submitUsername(page, site);
      expect(post.url).toBe(SCREEN_PATH);
      const fields = Object.fromEntries(post.fields);
      // Subpath imports skip the wrapper's root entry, which is what renames the SDK marker, so the plain
      // SDK's name is posted.
      expect(fields).toMatchObject({ username: 'jane@example.com', state: 'fake-state-1', 'acul-sdk': '@auth0/auth0-acul-js@1.8.0', 'js-available': 'true' });
    } finally {
      await page.close();
      await site.close();
    }
  });
  it.each(SCREEN_CASES.map((c) => [c.screen.name, c] as const))('the plain-SDK bundle renders %s and (where it has a form) posts through the SDK', async (_name, c) => {
    const { page, site } = await open(bundles.vanillaUrl, fakeContext(c.prompt, c.screen));
    try {
      expect(await page.textContent('#acul-screen')).toBe(c.screen.name);
      expect(await page.textContent('#acul-errors')).toBe('[]');
      const links = await page.$$eval('a', (anchors) => anchors.map((anchor) => anchor.id));
      expect(links).toEqual(c.links);
      if (!c.posted) {
        expect(await page.$('#submit')).toBeNull();
        return;
      }
      for (const [id, value] of Object.entries(c.fill)) await page.fill(`#${id}`, value);
      await Promise.all([page.waitForSelector('#posted'), page.click(c.press ?? '#submit')]);
      const [post] = site.posts;
      expect(post?.url).toBe(SCREEN_PATH);
      const fields = Object.fromEntries(post?.fields ?? []);
      expect(post?.fields.map(([name]) => name)).toEqual([...Object.keys(c.posted), ...(c.extraFields ?? []), 'state', 'acul-sdk']);
      expect(fields).toMatchObject({ ...c.posted, state: 'fake-state-1', 'acul-sdk': '@auth0/auth0-acul-js@1.8.0' });
    } finally {
      await page.close();
      await site.close();
    }
  });
  it.each(SCREEN_CASES.filter((c) => c.screen.name === 'login-password' || c.screen.name === 'login').map((c) => [c.screen.name, c] as const))(
    'the React bundle renders %s and posts the same form as the plain SDK',
    async (_name, c) => {
      const { page, site } = await open(bundles.reactUrl, fakeContext(c.prompt, c.screen));
      try {
        expect(await page.getAttribute('body', 'data-acul-flavour')).toBe('react');
        expect(await page.textContent('#acul-screen')).toBe(c.screen.name);
        expect(await page.$$eval('a', (anchors) => anchors.map((anchor) => anchor.id))).toEqual(c.links);
        for (const [id, value] of Object.entries(c.fill)) await page.fill(`#${id}`, value);
        await Promise.all([page.waitForSelector('#posted'), page.click('#submit')]);
        const [post] = site.posts;
        expect(post?.fields.map(([name]) => name)).toEqual([...Object.keys(c.posted ?? {}), ...(c.extraFields ?? []), 'state', 'acul-sdk']);
        expect(Object.fromEntries(post?.fields ?? [])).toMatchObject({ ...c.posted, state: 'fake-state-1' });
      } finally {
        await page.close();
        await site.close();
      }
    },
  );
});
