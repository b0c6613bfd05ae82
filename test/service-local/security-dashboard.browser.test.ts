// The dashboard's hardening in a real headless Chromium (issue 35, rows 3 and
// 7): the page runs under its Content-Security-Policy without a single
// violation, cannot be framed by a page of another origin, and beyond
// loopback works with the token from its start URL (kept across a reload,
// gone from the address bar) and says so when opened without it. Skips (with
// the reason) when /usr/bin/chromium or playwright-core is not installed.

import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { RunningService } from '../../host/service/server';
import { until } from './browser-until';
import { call, provision, serviceHarness } from './helpers';

const CHROMIUM = '/usr/bin/chromium';

// The few playwright-core calls used here, typed locally so the project
// type-checks without the package.
interface Frame {
  url(): string;
  evaluate(expr: string): Promise<unknown>;
}
interface Locator {
  textContent(): Promise<string | null>;
  fill(value: string): Promise<void>;
  click(): Promise<void>;
}
interface Page {
  goto(url: string): Promise<unknown>;
  reload(): Promise<unknown>;
  url(): string;
  locator(selector: string): Locator;
  evaluate(expr: string): Promise<unknown>;
  waitForTimeout(ms: number): Promise<void>;
  frames(): Frame[];
  mainFrame(): Frame;
  on(event: 'pageerror', cb: (err: Error) => void): void;
  on(event: 'console', cb: (msg: { type(): string; text(): string }) => void): void;
  on(event: 'request', cb: (req: { url(): string }) => void): void;
  close(): Promise<void>;
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
if (skipReason) console.warn(`dashboard security browser test skipped: ${skipReason}`);

/** A page that records its errors, its CSP violations and what it requested. */
async function watchedPage(browser: Browser): Promise<{ page: Page; problems: string[]; requested: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  const requested: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    // A CSP refusal is reported on the console (a missing favicon is not a problem).
    if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('request', (r) => requested.push(r.url()));
  return { page, problems, requested };
}

describe.skipIf(skipReason !== undefined)('dashboard hardening in a browser', () => {
  const h = serviceHarness();
  let svc: RunningService;
  let browser: Browser;
  let other: http.Server;
  let otherUrl = '';

  beforeAll(async () => {
    svc = await h.start({ dataDir: h.dir() });
    browser = await (pw as PlaywrightCore).chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    // Another origin (another port) whose page frames the dashboard.
    other = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><title>framer</title><iframe id="f" src="${svc.url}/" width="800" height="600"></iframe>`);
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => other?.close(r));
    await h.cleanup();
  });

  it('runs under its Content-Security-Policy with no violation: devices show, values are set', async () => {
    const v = await provision(svc.port, 'Value', 'c@example.com', 'pw', 'csp-relay');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/0`);
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${svc.url}/`);
    const card = `section.device[data-device-id="${v.id}"]`;
    await until(page, `document.querySelector('${card} .last-value')?.textContent === '0'`, 5000);
    await page.locator(`${card} .set-value`).fill('1');
    await page.locator(`${card} .set-button`).click();
    await until(page, `document.querySelector('${card} .set-answer')?.textContent === 'ok: Value updated'`, 5000);
    // The style applied too (a CSP refusal of the <style> would leave the grid unset).
    expect(await page.mainFrame().evaluate(`getComputedStyle(document.getElementById('devices')).display`)).toBe('grid');
    expect(problems).toEqual([]);
    // An inline script that is not the page's own does not run.
    const injected = `(function () { var s = document.createElement('script'); s.textContent = 'window.injectedRan = true;'; document.head.appendChild(s); return window.injectedRan === true ? 'ran' : 'refused'; })()`;
    expect(await page.mainFrame().evaluate(injected)).toBe('refused');
    // ...and is reported, as any violation of the page itself would have been above.
    for (let i = 0; i < 100 && problems.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(problems.length, problems.join('\n')).toBe(1);
    expect(problems[0]).toMatch(/inline script/i);
    await page.close();
  });

  it('cannot be framed by a page of another origin', async () => {
    const { page, requested } = await watchedPage(browser);
    await page.goto(otherUrl);
    await until(page, `document.getElementById('f') !== null`, 5000);
    // Give a framed dashboard the time to poll twice, were it loaded.
    await page.waitForTimeout(2500);
    const framed = page.frames().filter((f) => f !== page.mainFrame());
    expect(framed).toHaveLength(1);
    const inside = await (framed[0] as Frame).evaluate(`document.getElementById('devices') === null ? 'blocked' : 'loaded'`).catch(() => 'blocked');
    expect(inside).toBe('blocked');
    expect(requested.filter((u) => u.includes('/dashboard/state'))).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skipReason !== undefined)('the dashboard beyond loopback in a browser', () => {
  const h = serviceHarness();
  let svc: RunningService;
  let browser: Browser;

  beforeAll(async () => {
    svc = await h.start({ dataDir: h.dir(), host: '0.0.0.0' });
    browser = await (pw as PlaywrightCore).chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await h.cleanup();
  });

  it('works from the start URL with its token, keeps it across a reload, and drops it from the address bar', async () => {
    const base = `http://127.0.0.1:${svc.port}`;
    const v = await provision(svc.port, 'Value', 't@example.com', 'pw', 'fleet-relay');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/0`);
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${base}/?token=${svc.dashboardToken as string}`);
    const card = `section.device[data-device-id="${v.id}"]`;
    await until(page, `document.querySelector('${card} .last-value')?.textContent === '0'`, 5000);
    expect(page.url()).toBe(`${base}/`);
    await page.locator(`${card} .set-value`).fill('1');
    await page.locator(`${card} .set-button`).click();
    await until(page, `document.querySelector('${card} .set-answer')?.textContent === 'ok: Value updated'`, 5000);
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${v.key}/${v.id}/${v.pin}`)).body).toBe('1');
    await page.reload();
    await until(page, `document.querySelector('${card} .last-value')?.textContent === '1'`, 5000);
    expect(problems, problems.join('\n')).toEqual([]);
    await page.close();
  });

  it('says the token is needed when opened without it, and shows no device', async () => {
    const { page } = await watchedPage(browser);
    await page.goto(`http://127.0.0.1:${svc.port}/`);
    await until(page, `/token/.test(document.getElementById('status').textContent)`, 5000);
    expect(await page.locator('#status').textContent()).toMatch(/start/);
    expect(await page.mainFrame().evaluate(`document.querySelectorAll('section.device').length`)).toBe(0);
    await page.close();
  });
});
