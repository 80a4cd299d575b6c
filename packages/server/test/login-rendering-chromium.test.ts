import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi } from './support/management-api.js';

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
        {
          tag: 'script',
          content:
            "document.addEventListener('DOMContentLoaded', function () { var c = JSON.parse(document.getElementById('universal-login-context').textContent); var p = document.createElement('pre'); p.id = 'seen'; p.textContent = JSON.stringify(c); document.body.appendChild(p); });",
        },
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
    await page.waitForSelector('#seen');
    const seen = JSON.parse((await page.textContent('#seen')) ?? '{}') as Record<string, Record<string, unknown>>;
    expect(seen.tenant?.friendly_name).toBeDefined();
    expect((seen.client?.metadata as Record<string, string>).brand).toBe('teal');
    expect((seen.untrusted_data?.authorization_params as Record<string, string>).login_hint).toBe(HOSTILE_HINT);
    expect(JSON.stringify(seen)).not.toContain(fx.web.clientSecret);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
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
