import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/** Headless Debian Chromium, as the project's browser tests run it (flags from the developers' guide). */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', ...extraArgs],
  });
}

/**
 * A normal (not off-the-record) Chromium profile whose third-party cookie setting is chosen: Debian's Chromium
 * blocks third-party cookies by default, and Playwright's contexts are off the record, where Chromium always
 * blocks them. The setting lives in the profile's Preferences, written before the browser starts.
 */
export async function launchChromiumProfile(options: { thirdPartyCookies: boolean; extraArgs?: readonly string[] }): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-chromium-'));
  mkdirSync(join(dir, 'Default'), { recursive: true });
  writeFileSync(
    join(dir, 'Default', 'Preferences'),
    JSON.stringify({
      profile: { block_third_party_cookies: !options.thirdPartyCookies, cookie_controls_mode: options.thirdPartyCookies ? 0 : 1 },
      tracking_protection: { block_all_3pc_toggle_enabled: !options.thirdPartyCookies },
    }),
  );
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    ignoreHTTPSErrors: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', ...(options.extraArgs ?? [])],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
