// The dashboard in a real headless Chromium: devices appear, values and the
// chart update live as writes arrive. Skips (with the reason) when
// /usr/bin/chromium or the playwright-core package is not installed.

import * as fs from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { RunningService } from '../../host/service/server';
import { call, provision, serviceHarness } from './helpers';

const CHROMIUM = '/usr/bin/chromium';

// The few playwright-core calls used here, typed locally so the project
// type-checks without the package.
interface Locator {
  textContent(): Promise<string | null>;
  getAttribute(name: string): Promise<string | null>;
  count(): Promise<number>;
}
interface Page {
  goto(url: string): Promise<unknown>;
  locator(selector: string): Locator;
  waitForFunction(fn: string, arg?: unknown, opts?: { timeout?: number }): Promise<unknown>;
  on(event: 'pageerror', cb: (err: Error) => void): void;
  on(event: 'request', cb: (req: { url(): string }) => void): void;
}
interface Browser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
interface PlaywrightCore {
  chromium: { launch(o: { executablePath: string; headless: boolean; args?: string[] }): Promise<Browser> };
}

async function loadPlaywright(): Promise<PlaywrightCore | string> {
  if (!fs.existsSync(CHROMIUM)) return `${CHROMIUM} is not installed`;
  try {
    const name = 'playwright-core';
    return (await import(name)) as PlaywrightCore;
  } catch {
    return 'playwright-core is not installed';
  }
}

const pw = await loadPlaywright();
const skipReason = typeof pw === 'string' ? pw : undefined;
if (skipReason) console.warn(`dashboard browser test skipped: ${skipReason}`);

describe.skipIf(skipReason !== undefined)('dashboard in a browser', () => {
  const h = serviceHarness();
  let svc: RunningService;
  let browser: Browser;
  const pageErrors: string[] = [];
  const requested: string[] = [];

  beforeAll(async () => {
    svc = await h.start({ dataDir: h.dir() });
    browser = await (pw as PlaywrightCore).chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await h.cleanup();
  });

  it('shows devices and updates values and charts live', async () => {
    const v = await provision(svc.port, 'Value', 'b@example.com', 'pw', 'Boiler');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/20`);

    const page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('request', (r) => requested.push(r.url()));
    await page.goto(`${svc.url}/`);
    const card = `section.device[data-device-id="${v.id}"]`;
    await page.waitForFunction(`document.querySelector('${card} .last-value')?.textContent === '20'`, undefined, { timeout: 5000 });
    expect(await page.locator(`${card} .device-name`).textContent()).toBe('Boiler');
    expect(await page.locator(`${card} .device-format`).textContent()).toBe('Value');
    expect(await page.locator(`${card} .chart`).getAttribute('data-points')).toBe('1');

    // a new write and a new device show up without reloading
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/23.5`);
    const j = await provision(svc.port, 'JSON', 'b@example.com', 'pw', 'Room');
    await call(svc.port, 'POST', `/api/updatedevicejson/${j.key}/${j.id}/${j.pin}`, '{"temp":4}');
    await page.waitForFunction(`document.querySelector('${card} .last-value')?.textContent === '23.5'`, undefined, { timeout: 5000 });
    await page.waitForFunction(`document.querySelectorAll('section.device').length === 2`, undefined, { timeout: 5000 });
    expect(await page.locator(`${card} .chart`).getAttribute('data-points')).toBe('2');
    const points = (await page.locator(`${card} .chart polyline`).getAttribute('points')) ?? '';
    expect(points.trim().split(/\s+/)).toHaveLength(2);
    expect(await page.locator(`section.device[data-device-id="${j.id}"] .device-format`).textContent()).toBe('JSON (chart: temp)');

    // no key or pin on the page, nothing fetched from elsewhere, no script errors
    const html = (await page.locator('body').textContent()) ?? '';
    expect(html).not.toContain(v.key);
    expect(html).not.toContain(String(v.pin));
    expect(requested.every((u) => u.startsWith(svc.url))).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
