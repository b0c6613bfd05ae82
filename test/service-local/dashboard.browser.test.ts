// The dashboard in a real headless Chromium: devices appear, values and the
// chart update live as writes arrive. Skips (with the reason) when
// /usr/bin/chromium or the playwright-core package is not installed.

import * as fs from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { BoardPanel } from '../../host/service/dashboard';
import type { RunningService } from '../../host/service/server';
import { until } from './browser-until';
import { call, provision, serviceHarness } from './helpers';

const CHROMIUM = '/usr/bin/chromium';

// The few playwright-core calls used here, typed locally so the project
// type-checks without the package.
interface Locator {
  textContent(): Promise<string | null>;
  getAttribute(name: string): Promise<string | null>;
  count(): Promise<number>;
  fill(value: string): Promise<void>;
  click(): Promise<void>;
  press(key: string): Promise<void>;
  isVisible(): Promise<boolean>;
  allTextContents(): Promise<string[]>;
}
interface Page {
  goto(url: string): Promise<unknown>;
  locator(selector: string): Locator;
  evaluate(expr: string): Promise<unknown>;
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
    await until(page, `document.querySelector('${card} .last-value')?.textContent === '20'`, 5000);
    expect(await page.locator(`${card} .device-name`).textContent()).toBe('Boiler');
    expect(await page.locator(`${card} .device-format`).textContent()).toBe('Value');
    expect(await page.locator(`${card} .chart`).getAttribute('data-points')).toBe('1');

    // a new write and a new device show up without reloading
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/23.5`);
    const j = await provision(svc.port, 'JSON', 'b@example.com', 'pw', 'Room');
    await call(svc.port, 'POST', `/api/updatedevicejson/${j.key}/${j.id}/${j.pin}`, '{"temp":4}');
    await until(page, `document.querySelector('${card} .last-value')?.textContent === '23.5'`, 5000);
    await until(page, `document.querySelectorAll('section.device').length === 2`, 5000);
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

  it("sets a Value device's stored value from its card's form and shows the API's answer", async () => {
    const v = await provision(svc.port, 'Value', 's@example.com', 'pw', 'control');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/0`);
    const j = await provision(svc.port, 'JSON', 's@example.com', 'pw', 'room');
    const page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${svc.url}/`);
    const card = `section.device[data-device-id="${v.id}"]`;
    await until(page, `document.querySelector('${card} .last-value')?.textContent === '0'`, 5000);
    // Only Value devices have the form.
    expect(await page.locator(`section.device[data-device-id="${j.id}"] .set-form`).count()).toBe(0);
    expect(await page.locator(`${card} form.set-form[data-device-id="${v.id}"]`).count()).toBe(1);

    await page.locator(`${card} .set-value`).fill('1');
    await page.locator(`${card} .set-button`).click();
    await until(page, `document.querySelector('${card} .set-answer')?.textContent === 'ok: Value updated'`, 5000);
    await until(page, `document.querySelector('${card} .last-value')?.textContent === '1'`, 5000);
    expect(await page.locator(`${card} .write-count`).textContent()).toBe('2');
    const read = await call(svc.port, 'GET', `/api/showdevicevalue/${v.key}/${v.id}/${v.pin}`);
    expect(read.body).toBe('1');

    // Enter submits too; a refused value shows the service's reason and stores nothing.
    await page.locator(`${card} .set-value`).fill('');
    await page.locator(`${card} .set-value`).press('Enter');
    await until(page, `document.querySelector('${card} .set-answer')?.textContent?.startsWith('error 400: value: ')`, 5000);
    expect(await page.locator(`${card} .set-answer`).getAttribute('class')).toContain('error');
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${v.key}/${v.id}/${v.pin}`)).body).toBe('1');

    // The form keeps what is typed across the page's polls.
    await page.locator(`${card} .set-value`).fill('typed');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await page.locator(`${card} .set-value`).getAttribute('value')).toBeNull();
    expect(await page.evaluate(`document.querySelector('${card} .set-value').value`)).toBe('typed');

    const html = (await page.locator('body').textContent()) ?? '';
    expect(html).not.toContain(v.key);
    expect(html).not.toContain(String(v.pin));
    expect(pageErrors).toEqual([]);
  });
});

describe.skipIf(skipReason !== undefined)('the simulated board panel in a browser', () => {
  const h = serviceHarness();
  let browser: Browser;
  let panel: BoardPanel | undefined;
  let svc: RunningService;

  beforeAll(async () => {
    svc = await h.start({ dataDir: h.dir(), board: () => panel });
    browser = await (pw as PlaywrightCore).chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await h.cleanup();
  });

  it('lists pin, output name, kind and level, and follows changes', async () => {
    const page = await browser.newPage();
    await page.goto(`${svc.url}/`);
    await until(page, `document.getElementById('status').textContent.indexOf('updated') >= 0`, 5000);
    expect(await page.locator('#board-box').isVisible()).toBe(false);

    panel = {
      title: 'pico-w HOST000000000001, simulated',
      outputs: [
        { gpio: 16, name: 'relay', kind: 'digital', level: 0, freqHz: null, writes: 1, open: true },
        { gpio: 17, name: 'fan', kind: 'pwm', level: 0.4, freqHz: 1000, writes: 2, open: true },
        { gpio: 18, name: 'lamp', kind: 'digital', level: null, freqHz: null, writes: 0, open: false },
      ],
    };
    const row = (gpio: number): string => `#board tr[data-gpio="${gpio}"]`;
    await until(page, `document.querySelectorAll('#board tbody tr').length === 3`, 5000);
    expect(await page.locator('#board-box').isVisible()).toBe(true);
    expect(await page.locator('#board-title').textContent()).toBe('pico-w HOST000000000001, simulated');
    expect(await page.locator(`${row(16)} td`).allTextContents()).toEqual(['GP16', 'relay', 'digital', 'off', '1']);
    expect(await page.locator(`${row(17)} td`).allTextContents()).toEqual(['GP17', 'fan', 'pwm 1000 Hz', '40%', '2']);
    expect(await page.locator(`${row(18)} td`).allTextContents()).toEqual(['GP18', 'lamp', 'digital', 'not driven', '0']);
    expect(await page.locator(row(16)).getAttribute('data-level')).toBe('0');

    panel.outputs[0] = { gpio: 16, name: 'relay', kind: 'digital', level: 1, freqHz: null, writes: 2, open: true };
    await until(page, `document.querySelector('${row(16)}')?.getAttribute('data-level') === '1'`, 5000);
    expect(await page.locator(`${row(16)} .output-level`).textContent()).toBe('ON');
    expect(await page.locator(row(16)).getAttribute('class')).toBe('high');
  });
});
