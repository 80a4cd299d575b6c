import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { HOSTILE_SCRIPT_VALUE } from './support/hostile-values.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';
import { en } from '../src/services/rendering/texts/en.js';

const HOSTILE_HINT = `"><img src=x onerror="window.__pwned='attr'"></script><script>window.__pwned='script'</script>\u2028`;

/**
 * The rendering configuration of the login screen takes effect in a real browser: an advanced screen carries
 * the configured head tags and exactly the configured context data, and hostile untrusted data never runs.
 */
describe('advanced rendering of the login screen in Chromium', () => {
  let server: TestServer;
  let fx: LoginFixture;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    fx = await provisionLogin(server);
    const api = managementApi(server);
    await api('PATCH', `/clients/${fx.web.clientId}`, { client_metadata: { brand: 'teal' } });
    const configured = await api('PATCH', '/prompts/login/screen/login/rendering', {
      rendering_mode: 'advanced',
      context_configuration: ['tenant.friendly_name', 'client.metadata.brand', 'untrusted_data.authorization_params.login_hint', 'untrusted_data.submitted_form_data'],
      default_head_tags_disabled: false,
      head_tags: [
        { tag: 'meta', attributes: { name: 'latchkey-test', content: 'configured' } },
        // A configured script runs after the context is set, as a tenant's bundle does: it records what it read.
        { tag: 'script', content: 'window.__seenByHeadScript = JSON.stringify(window.universal_login_context);' },
      ],
      filters: { match_type: 'includes_any', clients: [{ id: fx.web.clientId }] },
    });
    expect(configured.status, JSON.stringify(configured.body)).toBe(200);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const authorizeUrl = (clientId: string) =>
    `${server.url}/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: fx.web.callback, response_type: 'code', login_hint: HOSTILE_HINT }).toString()}`;

  it('renders the configured head tags and context, and hostile untrusted data stays text', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    await page.goto(authorizeUrl(fx.web.clientId));
    expect(await page.getAttribute('meta[name="latchkey-test"]', 'content')).toBe('configured');
    const seen = (await page.evaluate(() => (window as unknown as { universal_login_context?: unknown }).universal_login_context)) as Record<string, Record<string, unknown>>;
    // The configured head script saw the same context: it is set before the configured tags run.
    expect(JSON.parse((await page.evaluate(() => (window as unknown as { __seenByHeadScript?: string }).__seenByHeadScript)) ?? 'null')).toEqual(seen);
    expect(seen.prompt).toEqual({ name: 'login' });
    expect(seen.screen?.name).toBe('login');
    expect(seen.client?.id).toBe(fx.web.clientId);
    expect(typeof seen.transaction?.state).toBe('string');
    expect(seen.tenant?.friendly_name).toBeDefined();
    expect((seen.client?.metadata as Record<string, string>).brand).toBe('teal');
    expect((seen.untrusted_data?.authorization_params as Record<string, string>).login_hint).toBe(HOSTILE_HINT);
    expect(JSON.stringify(seen)).not.toContain(fx.web.clientSecret);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    // The body is left to the tenant's bundle: no widget, no form, no other script.
    expect(await page.evaluate(() => document.body.childElementCount)).toBe(0);
    expect(await page.locator('form').count()).toBe(0);
    expect(await page.locator('script[type="application/json"]').count()).toBe(0);
    expect(dialogs).toEqual([]);
    await context.close();
  });

  it('leaves other clients on the standard page (the filter names one client)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizeUrl(fx.spa.clientId).replace(encodeURIComponent(fx.web.callback), encodeURIComponent(fx.spa.callback)));
    expect(await page.locator('meta[name="latchkey-test"]').count()).toBe(0);
    expect(await page.locator('input[name="username"]').count()).toBe(1);
    expect(await page.inputValue('input[name="username"]')).toBe(HOSTILE_HINT);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    await context.close();
  });
});

/** The request data an advanced screen's context can carry, each as the placeholder a script would use. */
const UNTRUSTED_FIELDS: Record<string, string> = {
  login_hint: 'untrusted_data.authorization_params.login_hint',
  screen_hint: 'untrusted_data.authorization_params.screen_hint',
  ui_locales: 'untrusted_data.authorization_params.ui_locales',
  'ext-campaign': 'untrusted_data.authorization_params.ext-campaign',
  username: 'untrusted_data.submitted_form_data.username',
};

/**
 * Configured inline scripts reading one field: one script per context ('...', "...", `...`, `${}`, a bare
 * expression, comments), each appending what it read to `window.__seen[field]`, so a value that breaks out of one
 * context runs its own code rather than only breaking its neighbours.
 */
function contextScripts(field: string, path: string): { tag: string; content: string }[] {
  const p = `{{ ${path} }}`;
  // A statement as a page author writes it; a value that ends its literal early would run the rest as code.
  const push = (expression: string) => `var read = ${expression};\n(window.__seen[${JSON.stringify(field)}] = window.__seen[${JSON.stringify(field)}] || []).push(read);`;
  return [`'${p}'`, `"${p}"`, `\`${p}\``, `\`\${ ${p} }\``, p, `/* ${p} */ 'comments' // ${p}\n`].map((expression) => ({ tag: 'script', content: push(expression) }));
}

/**
 * Placeholders of configured scripts in a real browser: hostile values in every untrusted field, inside every
 * kind of quote, read back exactly and never run; the page's policy lets only nonce'd inline scripts and the
 * configured script host run.
 */
describe('placeholders in advanced screens and their script policy in Chromium', () => {
  const SCRIPT_HOST = 'https://scripts.example.test';
  let server: TestServer;
  let fx: LoginFixture;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer({ dialect: 'sqlite', listen: true });
    fx = await provisionLogin(server);
    const configured = await managementApi(server)('PATCH', '/prompts/login/screen/login/rendering', {
      rendering_mode: 'advanced',
      context_configuration: ['untrusted_data.submitted_form_data', ...Object.values(UNTRUSTED_FIELDS).filter((path) => path.includes('authorization_params'))],
      head_tags: [
        { tag: 'script', attributes: { src: `${SCRIPT_HOST}/widget.js`, defer: true } },
        { tag: 'script', content: 'window.__seen = {};' },
        ...Object.entries(UNTRUSTED_FIELDS).flatMap(([field, path]) => contextScripts(field, path)),
      ],
      filters: { match_type: 'includes_any', clients: [{ id: fx.web.clientId }] },
    });
    expect(configured.status, JSON.stringify(configured.body)).toBe(200);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('reads hostile values back exactly in every quote context, runs none of them, and allows only nonce and configured host', async () => {
    const context = await browser.newContext();
    // The configured host and one the configuration never named, both answering with code.
    await context.route(`${SCRIPT_HOST}/**`, (route) => route.fulfill({ contentType: 'text/javascript', body: 'window.__external = "ran";' }));
    await context.route('https://elsewhere.example.test/**', (route) => route.fulfill({ contentType: 'text/javascript', body: 'window.__elsewhere = "ran";' }));
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    const pwned = () => page.evaluate(() => (window as unknown as { pwned?: unknown }).pwned);
    const seen = () => page.evaluate(() => (window as unknown as { __seen?: Record<string, unknown[]> }).__seen ?? {});

    const params = new URLSearchParams({
      client_id: fx.web.clientId,
      redirect_uri: fx.web.callback,
      response_type: 'code',
      login_hint: HOSTILE_SCRIPT_VALUE,
      screen_hint: HOSTILE_SCRIPT_VALUE,
      ui_locales: HOSTILE_SCRIPT_VALUE,
      'ext-campaign': HOSTILE_SCRIPT_VALUE,
    });
    const response = await page.goto(`${server.url}/authorize?${params.toString()}`);
    const policy = (await response?.allHeaders())?.['content-security-policy'] ?? '';
    expect(policy).toMatch(/^script-src 'nonce-[A-Za-z0-9+/]+={0,2}' https:\/\/scripts\.example\.test; object-src 'none'; base-uri 'none'; frame-ancestors 'none'$/);
    await page.waitForFunction(() => (window as unknown as { __external?: string }).__external === 'ran', undefined, { timeout: 15_000 });
    expect(await pwned()).toBeUndefined();
    const first = await seen();
    for (const field of ['login_hint', 'screen_hint', 'ui_locales', 'ext-campaign', 'username']) {
      // On the first visit the login field is filled from login_hint, so the form data carries it too.
      expect(first[field], field).toEqual([...Array(5).fill(HOSTILE_SCRIPT_VALUE), 'comments']);
    }

    // Submitted form data comes back on the refused attempt's page, again only as data. The advanced page has no
    // form of its own: the test posts one as a tenant's bundle would, to the page's URL with the context's state.
    const typed = await page.evaluate((value) => {
      const context = (window as unknown as { universal_login_context: { transaction: { state: string } } }).universal_login_context;
      const form = document.createElement('form');
      form.method = 'post';
      form.action = location.href;
      const fields = { state: context.transaction.state, username: value, password: 'not the password' };
      for (const [name, text] of Object.entries(fields)) {
        const input = document.createElement('input');
        input.name = name;
        input.value = text;
        form.append(input);
      }
      document.body.append(form);
      return (form.elements.namedItem('username') as HTMLInputElement).value;
    }, HOSTILE_SCRIPT_VALUE);
    await Promise.all([page.waitForNavigation(), page.evaluate(() => document.querySelector('form')?.submit())]);
    expect(page.url()).toMatch(/\/u\/login\?state=/);
    const refused = await page.evaluate(
      () => (window as unknown as { universal_login_context: { transaction: { errors?: { code: string; message: string }[] }; untrusted_data: unknown } }).universal_login_context,
    );
    expect(refused.transaction.errors?.map((error) => error.code)).toEqual(['wrong-email-credentials']);
    expect(refused.transaction.errors?.[0]?.message).toBe(en.shared.credentialErrors['wrong-email-credentials']);
    // The password is never written back, not even as submitted form data.
    expect(JSON.stringify(refused)).not.toContain('not the password');
    expect(typed).toContain(`';globalThis.pwned`);
    expect((await seen()).username).toEqual([...Array(5).fill(typed), 'comments']);
    expect(await pwned()).toBeUndefined();

    // Code the configuration did not name does not run: an inline script without the nonce, a script of another host.
    const foreignLoad = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const inline = document.createElement('script');
          inline.textContent = 'window.__inline = "ran";';
          document.head.append(inline);
          const foreign = document.createElement('script');
          foreign.src = 'https://elsewhere.example.test/x.js';
          foreign.onload = () => resolve('loaded');
          foreign.onerror = () => resolve('refused');
          document.head.append(foreign);
        }),
    );
    expect(foreignLoad).toBe('refused');
    expect(await page.evaluate(() => [(window as unknown as { __inline?: string }).__inline, (window as unknown as { __elsewhere?: string }).__elsewhere])).toEqual([undefined, undefined]);
    expect(dialogs).toEqual([]);
    await context.close();
  });

  it('keeps frame-ancestors and base-uri on every hosted page', async () => {
    const answer = await fetch(`${server.url}/authorize?${new URLSearchParams({ client_id: fx.spa.clientId, redirect_uri: fx.spa.callback, response_type: 'code' }).toString()}`, { redirect: 'manual' });
    const cookie = answer.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
    const pages = {
      'standard login page': await fetch(new URL(answer.headers.get('location') ?? '', server.url), { headers: { cookie } }),
      'error page': await fetch(`${server.url}/u/login?state=unknown`),
      'reset page': await fetch(`${server.url}/u/reset-password?ticket=unknown`),
      'unblock page': await fetch(`${server.url}/u/unblock?ticket=unknown`),
      'development outbox': await fetch(`${server.url}/dev/outbox`),
    };
    for (const [name, page] of Object.entries(pages)) {
      const policy = page.headers.get('content-security-policy') ?? '';
      expect(policy, name).toContain("base-uri 'none'");
      expect(policy, name).toContain("frame-ancestors 'none'");
    }
    expect(pages['standard login page'].status).toBe(200);
    expect(pages['standard login page'].headers.get('content-security-policy')).toMatch(/script-src 'nonce-[^']+';/);
  });
});
