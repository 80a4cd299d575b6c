import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { bootstrapAdministrator, expectAccessible, screenshot, signInThroughHostedPage, type ConsoleAdministrator } from './support/console-browser.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { passwordRealmForm, provisionLogin, type LoginFixture } from './support/login-fixture.js';
import { managementApi, type ManagementApi } from './support/management-api.js';

const CLAIM = 'https://example.com/x';
const LAST = 'https://example.com/last';

const TIER_V1 = `exports.onExecutePostLogin = async (event, api) => {
  console.log('tagging', event.user.email);
  api.idToken.setCustomClaim('${CLAIM}', 'bronze');
  api.idToken.setCustomClaim('${LAST}', 'tag-tier');
};
`;
// Version 2 reads a secret and formats it with a dependency from the modules directory.
const TIER_V2 = `const shout = require('claim-format');
exports.onExecutePostLogin = async (event, api) => {
  api.idToken.setCustomClaim('${CLAIM}', shout(event.secrets.TIER));
  api.idToken.setCustomClaim('${LAST}', 'tag-tier');
};
`;
const STAMP = `exports.onExecutePostLogin = async (event, api) => {
  api.idToken.setCustomClaim('${LAST}', 'stamp-audit');
};
`;

describe('admin console: Actions in Chromium', () => {
  let server: TestServer;
  let api: ManagementApi;
  let browser: Browser;
  let administrator: ConsoleAdministrator;
  let fx: LoginFixture;
  const modulesDir = mkdtempSync(join(tmpdir(), 'latchkey-console-modules-'));

  beforeAll(async () => {
    // One package in the actions' modules directory, for the dependencies card.
    mkdirSync(join(modulesDir, 'node_modules', 'claim-format'), { recursive: true });
    writeFileSync(join(modulesDir, 'node_modules', 'claim-format', 'package.json'), JSON.stringify({ name: 'claim-format', version: '1.2.0', main: 'index.js' }));
    writeFileSync(join(modulesDir, 'node_modules', 'claim-format', 'index.js'), 'module.exports = (value) => String(value).toUpperCase();\n');
    [server, browser] = await Promise.all([
      startTestServer({ dialect: 'postgres', listen: true, env: { LATCHKEY_CONSOLE: 'on', LATCHKEY_ACTIONS_MODULES_DIR: modulesDir } }),
      launchChromium(),
    ]);
    api = managementApi(server);
    administrator = bootstrapAdministrator(server);
    fx = await provisionLogin(server);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(modulesDir, { recursive: true, force: true });
  });

  /** A real login of the fixture's user (password-realm grant): the ID token's claims that the actions set. */
  async function loginClaims(): Promise<Record<string, unknown>> {
    const response = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(passwordRealmForm(fx, { scope: 'openid' })),
    });
    const body = (await response.json()) as { id_token?: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    const claims = JSON.parse(Buffer.from((body.id_token ?? '').split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    return { x: claims[CLAIM], last: claims[LAST] };
  }

  /** Replaces the code in the CodeMirror editor, as typing it would. */
  async function writeCode(page: Page, code: string): Promise<void> {
    const editor = page.getByRole('textbox', { name: 'Code', exact: true });
    await editor.fill(code);
    await expect.poll(() => editor.textContent()).toContain(code.split('\n')[1]?.trim().slice(0, 20));
  }

  async function createAction(page: Page, name: string): Promise<string> {
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Actions' }).click();
    await page.getByRole('button', { name: 'Create action' }).click();
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Trigger').selectOption('post-login');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name, level: 1 }).waitFor();
    // CodeMirror arrives in its own chunk: the plain field stands in until then.
    await page.locator('.cm-content').waitFor();
    return decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) ?? '');
  }

  const bindings = async () => ((await api('GET', '/actions/triggers/post-login/bindings')).body.bindings as { display_name: string }[]).map((binding) => binding.display_name);

  it('writes, tests, deploys and binds actions; a login carries their claims; a rollback changes them', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    // Every CSP refusal on the page, reported by the browser. The one refusal allowed: Chromium's own editing, when a
    // selection of several lines is replaced, asks for a style attribute on a line; CodeMirror redraws from its state.
    const cspViolations: { directive: string; inEditorText: boolean }[] = [];
    await context.addInitScript(() =>
      document.addEventListener('securitypolicyviolation', (event) => {
        const inEditorText = event.composedPath().some((node) => node instanceof Element && node.classList.contains('cm-content'));
        console.warn(`csp-violation ${JSON.stringify({ directive: event.violatedDirective, inEditorText })}`);
      }),
    );
    page.on('console', (message) => {
      if (message.text().startsWith('csp-violation ')) cspViolations.push(JSON.parse(message.text().slice('csp-violation '.length)) as (typeof cspViolations)[number]);
    });
    try {
      await signInThroughHostedPage(page, server, administrator.email, administrator.password);
      const tierId = await createAction(page, 'Tag tier');
      expect(await page.getByRole('textbox', { name: 'Code', exact: true }).textContent()).toContain('exports.onExecutePostLogin = async (event, api)');
      // Highlighted: the keyword "async" has the stylesheet's keyword colour.
      const keyword = page.locator('.cm-content span', { hasText: /^async$/ }).first();
      expect(await keyword.evaluate((element) => getComputedStyle(element).color)).toBe('rgb(130, 80, 223)');
      // Tab indents in the editor; Escape then Tab leaves it for the next control.
      await page.getByRole('textbox', { name: 'Code', exact: true }).focus();
      await page.keyboard.press('Escape');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Save draft');

      // A syntax error: the draft's build says so in words, and nothing can be tested or deployed.
      await writeCode(page, "exports.onExecutePostLogin = async (event, api) => {\n  api.idToken.setCustomClaim('x', ;\n};\n");
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByRole('alert').filter({ hasText: 'The draft does not build' }).waitFor();
      expect(await page.getByRole('alert').filter({ hasText: 'The draft does not build' }).textContent()).toMatch(/Unexpected|Expected/);

      await writeCode(page, TIER_V1);
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByRole('status').filter({ hasText: 'Draft saved.' }).waitFor();
      expect(await page.getByRole('alert').count()).toBe(0);

      // The test runner: the sample event, edited as JSON; a JSON mistake is refused in words first.
      const event = page.getByLabel('Event (JSON)');
      expect(JSON.parse(await event.inputValue())).toMatchObject({ user: { email: 'jane@example.com' }, transaction: { protocol: 'oidc-basic-profile' } });
      await event.fill('{ "user": ');
      await page.getByRole('button', { name: 'Run test' }).click();
      await page.getByRole('alert').filter({ hasText: 'The event is not valid JSON' }).waitFor();
      await page.getByRole('button', { name: 'Reset to the sample' }).click();
      await event.fill((await event.inputValue()).replace('jane@example.com', 'tester@example.com'));
      await page.getByRole('button', { name: 'Run test' }).click();
      await page.getByRole('status').filter({ hasText: /The action ran in \d+ ms/ }).waitFor();
      const calls = page.getByRole('table', { name: 'API calls the action made' });
      expect(await calls.textContent()).toContain(`api.idToken.setCustomClaim"${CLAIM}", "bronze"`);
      expect(await page.getByLabel('Logs').textContent()).toBe('tagging tester@example.com');

      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Version 1 deployed.' }).waitFor();

      // Secrets: added, updated, removed (with a confirmation); their values are never shown back.
      await page.getByLabel('Secret name').fill('TIER');
      await page.getByLabel('Secret value').fill('silver');
      await page.getByRole('button', { name: 'Add secret' }).click();
      await page.getByRole('status').filter({ hasText: 'Secret TIER added.' }).waitFor();
      await page.getByRole('button', { name: 'Update value of TIER' }).click();
      await page.getByLabel('New value of TIER').fill('gold');
      await page.getByRole('button', { name: 'Save value' }).click();
      await page.getByRole('status').filter({ hasText: 'Secret TIER updated.' }).waitFor();
      await page.getByLabel('Secret name').fill('OLD_KEY');
      await page.getByLabel('Secret value').fill('to-be-removed');
      await page.getByRole('button', { name: 'Add secret' }).click();
      await page.getByRole('button', { name: 'Remove OLD_KEY' }).click();
      await page.getByRole('dialog', { name: 'Remove the secret OLD_KEY?' }).getByRole('button', { name: 'Remove' }).click();
      await page.getByRole('status').filter({ hasText: 'Secret OLD_KEY removed.' }).waitFor();
      expect(await page.content()).not.toContain('gold');
      const secrets = (await api('GET', `/actions/actions/${tierId}`)).body.secrets as { name: string }[];
      expect(secrets.map((secret) => secret.name)).toEqual(['TIER']);

      // Dependencies: one that is not installed fails the build, in words; the installed one builds.
      await page.getByLabel('Package name').fill('left-pad');
      await page.getByLabel('Version', { exact: true }).fill('1.3.0');
      await page.getByRole('button', { name: 'Add dependency' }).click();
      await page.getByRole('alert').filter({ hasText: 'The dependency left-pad is not installed in the modules directory' }).waitFor();
      await page.getByRole('button', { name: 'Remove the dependency left-pad' }).click();
      await page.getByLabel('Package name').fill('claim-format');
      await page.getByLabel('Version', { exact: true }).fill('1.2.0');
      await page.getByRole('button', { name: 'Add dependency' }).click();
      await page.getByText('claim-format@1.2.0').waitFor();
      expect(await page.getByRole('alert').count()).toBe(0);

      // Version 2 uses the secret and the dependency; "Run test" saves the draft first.
      await writeCode(page, TIER_V2);
      await event.fill((await event.inputValue()).replace('tester@example.com', 'second@example.com'));
      await page.getByRole('button', { name: 'Run test' }).click();
      await expect.poll(() => calls.textContent()).toContain(`"${CLAIM}", "GOLD"`);
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Version 2 deployed.' }).waitFor();
      await page.getByRole('button', { name: 'View code of version 1' }).click();
      expect(await page.getByLabel('Code of version 1', { exact: true }).textContent()).toBe(TIER_V1);
      await expectAccessible(page);
      await screenshot(page, 'actions-editor');

      const stampId = await createAction(page, 'Stamp audit');
      await writeCode(page, STAMP);
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Version 1 deployed.' }).waitFor();

      // Flows: both actions added to post-login, saved; the login runs them in order (the last claim set wins).
      await page.getByRole('link', { name: '← Actions' }).click();
      await page.getByRole('navigation', { name: 'Actions' }).getByRole('link', { name: 'Flows' }).click();
      await page.getByRole('heading', { name: 'Flows' }).waitFor();
      await page.getByRole('button', { name: 'Add Tag tier to the flow' }).click();
      await page.getByRole('button', { name: 'Add Stamp audit to the flow' }).click();
      await page.getByRole('button', { name: 'Save flow' }).click();
      await page.getByRole('status').filter({ hasText: 'Flow saved.' }).waitFor();
      expect(await bindings()).toEqual(['Tag tier', 'Stamp audit']);
      expect(await loginClaims()).toEqual({ x: 'GOLD', last: 'stamp-audit' });

      // Reordered with the keyboard (the move buttons), then by dragging.
      await page.getByRole('button', { name: 'Move Stamp audit up' }).focus();
      await page.keyboard.press('Enter');
      await page.getByText('Stamp audit moved to position 1 of 2.').waitFor();
      await page.getByRole('button', { name: 'Save flow' }).click();
      await page.getByRole('status').filter({ hasText: 'Flow saved.' }).waitFor();
      expect(await bindings()).toEqual(['Stamp audit', 'Tag tier']);
      expect(await loginClaims()).toEqual({ x: 'GOLD', last: 'tag-tier' });
      await page.getByTestId('flow-step-1').dragTo(page.getByTestId('flow-step-0'));
      await page.getByText('Tag tier moved to position 1 of 2.').waitFor();
      await expectAccessible(page);
      await screenshot(page, 'actions-flows');
      await page.getByRole('button', { name: 'Save flow' }).click();
      await page.getByRole('status').filter({ hasText: 'Flow saved.' }).waitFor();
      expect(await bindings()).toEqual(['Tag tier', 'Stamp audit']);

      // Rolled back to version 1 (after a confirmation): the next login has its claim again.
      await page.getByRole('navigation', { name: 'Actions' }).getByRole('link', { name: 'Library' }).click();
      await page.getByRole('link', { name: 'Tag tier' }).click();
      await page.getByRole('button', { name: 'Roll back to version 1' }).click();
      await page.getByRole('dialog', { name: 'Roll back to version 1?' }).getByRole('button', { name: 'Deploy it' }).click();
      await page.getByRole('status').filter({ hasText: 'Rolled back: version 3 is deployed.' }).waitFor();
      expect(await loginClaims()).toEqual({ x: 'bronze', last: 'stamp-audit' });
      // The draft stays version 2's code unless asked otherwise.
      expect(await page.getByRole('textbox', { name: 'Code', exact: true }).textContent()).toContain("require('claim-format')");

      // Deleting an action a flow runs: the API's refusal in words, then with its removal from the flows.
      await page.getByRole('link', { name: '← Actions' }).click();
      await page.getByRole('row', { name: /Stamp audit/ }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'actions-library');
      await page.getByRole('button', { name: 'Delete Stamp audit' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete Stamp audit?' });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Delete Stamp audit' }).click();
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('alert').filter({ hasText: 'The action is bound to the trigger post-login' }).waitFor();
      expect((await api('GET', `/actions/actions/${stampId}`)).status).toBe(200);
      await page.getByRole('button', { name: 'Delete Stamp audit' }).click();
      await dialog.getByLabel('Also remove it from the flows that run it').check();
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('row', { name: /Stamp audit/ }).waitFor({ state: 'detached' });
      expect((await api('GET', `/actions/actions/${stampId}`)).status).toBe(404);
      expect(await bindings()).toEqual(['Tag tier']);
      expect(await loginClaims()).toEqual({ x: 'bronze', last: 'tag-tier' });
      expect(cspViolations.filter((violation) => !(violation.directive === 'style-src-attr' && violation.inEditorText))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);
});
