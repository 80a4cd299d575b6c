import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { headTagsFor } from './acul-bundles.js';
import type { ManagementApi } from './management-api.js';

/**
 * What the browser suites that run the tenant bundles of test/fixtures/acul share: pointing screens at a bundle,
 * waiting until the SDK rendered a screen, submitting through the SDK, and reading what the SDK parsed.
 */

/** The context items the suites' rendering configurations ask for. */
export const CONTEXT_CONFIGURATION = ['screen.texts', 'untrusted_data.authorization_params.login_hint', 'untrusted_data.authorization_params.ext-theme', 'tenant.friendly_name'];

/** Every `[prompt, screen]` runs `bundleUrl` for the applications named; other applications get standard pages. */
export async function configureAculBundle(api: ManagementApi, bundleUrl: string, screens: ReadonlyArray<readonly [string, string]>, clientIds: readonly string[]): Promise<void> {
  const configs = screens.map(([prompt, screen]) => ({
    prompt,
    screen,
    rendering_mode: 'advanced',
    context_configuration: CONTEXT_CONFIGURATION,
    head_tags: headTagsFor(bundleUrl),
    filters: { match_type: 'includes_any', clients: clientIds.map((id) => ({ id })) },
  }));
  const answer = await api('PATCH', '/prompts/rendering', { configs });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
}

/** Waits until the bundle has rendered `screen` through the SDK (the SDK's own screen-name check passed). */
export async function renderedBySdk(page: Page, screen: string): Promise<void> {
  await page.waitForSelector('body[data-acul-ready]', { timeout: 10_000 }).catch(async (error: unknown) => {
    throw new Error(`${screen} not rendered at ${page.url()}: ${(await page.content()).slice(0, 1500)}`, { cause: error });
  });
  const ready = await page.getAttribute('body', 'data-acul-ready');
  // The bundle says why the SDK refused the page (`#acul-fatal`) when it did not render.
  const fatal = ready === 'true' ? '' : await page.$eval('#acul-fatal', (element) => element.textContent ?? '').catch(() => '');
  expect(ready, fatal).toBe('true');
  expect(await page.textContent('#acul-screen')).toBe(screen);
}

/** Clicks a button of the bundle (the SDK posts its form) and waits for the next document. */
export async function submitThroughSdk(page: Page, button = '#submit'): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(button)]);
}

/** JSON the bundle wrote into an element (`#acul-errors`, `#acul-data`, `#acul-alternates`, …). */
export async function shownJson<T>(page: Page, selector: string): Promise<T> {
  return JSON.parse((await page.textContent(selector)) ?? 'null') as T;
}

/** `screen.getErrors()` as the SDK gave it to the bundle. */
export const sdkErrors = (page: Page) => shownJson<{ code: string; field?: string; message: string }[] | null>(page, '#acul-errors');
