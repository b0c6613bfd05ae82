// Headless Chromium for the browser tests: Debian's chromium package, driven
// by playwright-core. `present` is for describe.skipIf: without the browser
// the tests skip, except in CI, where Chromium is installed by .ci/run, so a
// missing browser fails there instead of skipping.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const present = existsSync(CHROMIUM);
if (!present && process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium package`);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A page that records script errors, CSP refusals and every answer of 400 or more. */
export async function watched(browser: Browser, width = 1280): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  return { page, problems };
}

/** The text of the first element `sel` matches ('' when it has none). */
export const text = async (page: Page, sel: string): Promise<string> => (await page.locator(sel).textContent()) ?? '';
