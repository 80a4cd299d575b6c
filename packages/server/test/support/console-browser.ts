import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestServer } from './harness.js';

// What every console test in Chromium shares: axe-core checks, screenshots of the areas, the administrator's sign-in.

const SCREENSHOTS = fileURLToPath(new URL('../../../../docs/console/', import.meta.url));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core in the page, through the DevTools protocol (the console's CSP refuses inline scripts, as it should):
 * no serious or critical violation, in the light and the dark colour scheme.
 */
export async function expectAccessible(page: Page): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const violations = (await page.evaluate(`(async () => { ${AXE_SOURCE}; const result = await axe.run(document); return result.violations; })()`)) as AxeViolation[];
    const grave = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
    expect(grave.map((violation) => `${colorScheme} ${violation.id}: ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/**
 * Each area is photographed on every run (a page that cannot render fails here); the pictures replace the ones in
 * docs/console only with UPDATE_SCREENSHOTS=1, so that a test run leaves the working tree as it was.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const picture = await page.screenshot({ fullPage: true });
  expect(picture.length).toBeGreaterThan(1000);
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(SCREENSHOTS, { recursive: true });
    writeFileSync(join(SCREENSHOTS, `${name}.png`), picture);
  }
}

/** The hosted login page of the console's sign-in: e-mail and password, then back to /admin/. */
export async function signInThroughHostedPage(page: Page, server: TestServer, email: string, password: string): Promise<void> {
  await page.goto(`${server.url}/admin/`);
  await page.waitForURL(/\/u\/login/);
  await page.getByLabel('E-mail address', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await Promise.all([page.waitForURL(`${server.url}/admin/**`), page.click('button[type="submit"]')]);
}

/** The bootstrap administrator a server started with LATCHKEY_CONSOLE=on wrote to its data folder. */
export interface ConsoleAdministrator {
  email: string;
  password: string;
  user_id: string;
  console: string;
}

export function bootstrapAdministrator(server: TestServer): ConsoleAdministrator {
  return JSON.parse(readFileSync(join(server.env.LATCHKEY_DATA_DIR ?? '', 'console-credentials.json'), 'utf8')) as ConsoleAdministrator;
}
