import { chromium, type Browser } from 'playwright-core';

/** Headless Debian Chromium, as the project's browser tests run it (flags from the developers' guide). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
