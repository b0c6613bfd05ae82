// The dashboard as the fleet's console (issue 36) in a real headless
// Chromium, under the page's own Content-Security-Policy: the board row, the
// configuration card (errors inline before anything is written, a valid
// document written and then reported run by the board), charts with a time
// axis and units, a device's history as a table and a CSV download, no Set
// form on a device a board writes, an output's refusal shown where the value
// was set, a page readable at 420 px, and no request of the page answered 4xx.

import { readFileSync } from 'node:fs';

import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { documentCrc } from '../../host/service/fleet';
import type { RunningService } from '../../host/service/server';
import { launchChromium, present, text, watched } from '../fakes/browser';
import { until } from './browser-until';
import { makeFleet, report, UID, writeJson } from './fleet-fixture';
import type { Dev, Fleet } from './fleet-fixture';
import { call, serviceHarness } from './helpers';

describe.skipIf(!present)('the fleet console in a browser', () => {
  const h = serviceHarness();
  let svc: RunningService;
  let browser: Browser;

  beforeAll(async () => {
    svc = await h.start({ dataDir: h.dir() });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h.cleanup();
  });

  async function stored(d: Dev): Promise<string> {
    return (await call(svc.port, 'GET', `/api/showdevicejson/${d.key}/${d.id}/${d.pin}`)).body;
  }

  it("shows one row per board, with its configuration, last document, heap, outbox, last reset and held devices", async () => {
    const f = await makeFleet(svc.port, 'row@example.com');
    await writeJson(svc.port, f.health, report(f, { outcome: 'reverted after 10 min without a delivery', ignored: ['wifi.ssid'] }));
    const { page, problems } = await watched(browser);
    await page.goto(`${svc.url}/`);
    const row = `#health tr[data-device-id="${f.health.id}"]`;
    await until(page, `document.querySelector('${row}') !== null`);
    const cell = (c: string): Promise<string> => text(page, `${row} .health-${c}`);
    expect(await cell('board')).toBe(`pico-w ${UID}`);
    expect(await cell('device')).toBe(`board_health #${f.health.id}`);
    expect(await cell('fw')).toBe('0.2.0');
    expect(await cell('boot')).toBe('7');
    expect(await cell('up')).toBe('62 min');
    expect(await cell('age')).toMatch(/^\d+ s ago \(every 60 s\)$/);
    expect(await cell('config')).toBe('a1b2c3d4 (service)');
    expect(await cell('remote')).toBe(`#${f.cfg.id} crc deadbeef: reverted after 10 min without a delivery; ignored: wifi.ssid; seen 30 s ago`);
    expect(await page.locator(`${row} .health-remote`).getAttribute('class')).toContain('reverted');
    expect(await cell('heap')).toBe('97000 B used, peak 110000 B of 184312 B');
    expect(await cell('outbox')).toBe('4 queued, 1 dropped');
    expect(await cell('reset')).toBe('reboot() asked');
    expect(await cell('held')).toBe('tx (404): device not found');
    expect(await cell('state')).toBe('ok');
    // A wide screen shows it as a table, a header per column.
    expect(await page.evaluate(`getComputedStyle(document.querySelector('${row} td')).display`)).toBe('table-cell');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('edits a configuration document: errors inline before anything is written, a valid one written, then reported run', async () => {
    const f = await makeFleet(svc.port, 'cfg@example.com');
    await writeJson(svc.port, f.health, report(f));
    const before = await stored(f.cfg);
    const { page, problems } = await watched(browser);
    await page.goto(`${svc.url}/`);
    const card = `section.device[data-device-id="${f.cfg.id}"]`;
    const area = `${card} .config-text`;
    await until(page, `(document.querySelector('${area}')?.value ?? '').indexOf('"devices"') >= 0`);
    // The document as JSON, its PINs not on the page.
    const shown = JSON.parse((await page.locator(area).inputValue()) || '{}') as Record<string, unknown>;
    expect(shown).toMatchObject({ devices: [{ name: 'tv', devicePin: '(kept)' }, { name: 'tj', devicePin: '(kept)' }] });
    const body = (await page.locator('body').innerText()) + (await page.locator(area).inputValue());
    for (const d of [f.tv, f.tj, f.ctl, f.health, f.cfg]) expect(body).not.toContain(String(d.pin));
    expect(await text(page, `${card} .config-user`)).toBe(`board pico-w ${UID}: applied (document crc deadbeef): not the stored document yet`);

    // Typed wrong: each broken rule a line naming its key, the ignored keys apart; nothing written.
    const wrong = { ...shown, wifi: { ssid: 'other' }, agent: { backoffBaseMs: 1 }, sensors: [{ name: 'temp', kind: 'temperature', pin: 30, intervalMs: 5 }, { name: 'air', kind: 'bme280', bus: 0 }] };
    await page.locator(area).fill(JSON.stringify(wrong, null, 2));
    await until(page, `document.querySelectorAll('${card} .config-errors li').length === 2`);
    expect(await page.locator(`${card} .config-errors li`).allTextContents()).toEqual([
      'agent.backoffBaseMs: must be a whole number from 100 to 60000',
      'sensor.temp.intervalMs: must be a whole number from 1000 to 86400000',
    ]);
    expect(await page.locator(`${card} .config-ignored li`).allTextContents()).toEqual(['wifi.ssid: ignored by boards (never taken from the service)']);
    await until(page, `/error\\(s\\)/.test(document.querySelector('${card} .config-answer').textContent)`);
    await page.locator(`${card} .config-write`).click();
    await until(page, `document.querySelector('${card} .config-answer').textContent === 'error 422: not written; fix the lines above'`);
    expect(await page.locator(`${card} .config-errors li`).count()).toBe(2);
    expect(await stored(f.cfg)).toBe(before);

    // Not JSON at all: one line.
    await page.locator(area).fill('{"board": "pico-w",');
    await until(page, `/^document: not JSON/.test(document.querySelector('${card} .config-errors li')?.textContent ?? '')`);
    expect(await stored(f.cfg)).toBe(before);

    // Fixed: valid, then written, the PINs kept.
    const right = { ...shown, wifi: { ssid: 'other' }, agent: { backoffBaseMs: 5000 } };
    await page.locator(area).fill(JSON.stringify(right, null, 2));
    await until(page, `document.querySelector('${card} .config-answer').textContent === 'valid: Write stores it for the boards'`);
    expect(await page.locator(`${card} .config-errors li`).count()).toBe(0);
    await page.locator(`${card} .config-write`).click();
    await until(page, `document.querySelector('${card} .config-answer').textContent === 'ok: JSON updated; ignored by boards: wifi.ssid'`);
    const now = await stored(f.cfg);
    expect(JSON.parse(now)).toEqual({ ...f.doc, wifi: { ssid: 'other' }, agent: { backoffBaseMs: 5000 } });

    // The board reads it and reports it run: the card says so.
    await writeJson(svc.port, f.health, report(f, { crc: documentCrc(now), outcome: 'applied', ignored: ['wifi.ssid'] }));
    await until(page, `/runs the stored document$/.test(document.querySelector('${card} .config-user')?.textContent ?? '')`);
    expect(await page.locator(`${card} .config-user`).getAttribute('class')).toContain('current');
    expect(await page.locator(area).inputValue()).toContain('"backoffBaseMs": 5000');
    // The one refusal is the invalid document's, as meant.
    expect(problems).toEqual([`422 ${svc.url}/dashboard/set-config`]);
    await page.close();
  });

  it("charts every numeric device over a time axis with its unit, and gives its history as a table and a CSV file", async () => {
    const f = await makeFleet(svc.port, 'chart@example.com');
    await writeJson(svc.port, f.health, report(f));
    const { page, problems } = await watched(browser);
    await page.goto(`${svc.url}/`);
    const card = (d: Dev): string => `section.device[data-device-id="${d.id}"]`;
    await until(page, `document.querySelector('${card(f.tj)} .chart')?.getAttribute('data-points') === '3'`);
    const clock = /^\d{1,2}:\d\d:\d\d( [AP]M)?$/;
    for (const [d, caption] of [[f.tv, 'value (C)'], [f.tj, 'temp (C)'], [f.tx, 'ldr (V)'], [f.ctl, 'value (level 0/1)'], [f.health, 'heap.used (B)']] as [Dev, string][]) {
      expect(await text(page, `${card(d)} .chart-unit`)).toBe(caption);
      expect(await text(page, `${card(d)} .chart-time`)).toBe("time (this browser's clock)");
      expect(await text(page, `${card(d)} .chart-t0`)).toMatch(clock);
    }
    expect(await text(page, `${card(f.tj)} .chart-t1`)).toMatch(clock);
    expect(await text(page, `${card(f.tj)} .chart-min`)).toBe('20.5');
    expect(await text(page, `${card(f.tj)} .chart-max`)).toBe('22.25');

    // The history, newest first.
    await page.locator(`${card(f.tj)} .history summary`).click();
    await until(page, `document.querySelectorAll('${card(f.tj)} .history-row').length === 3`);
    expect(await text(page, `${card(f.tj)} .history-unit`)).toBe('temp (C)');
    expect(await page.locator(`${card(f.tj)} .history-row .history-value`).allTextContents()).toEqual(['22.25', '21', '20.5']);
    expect(await text(page, `${card(f.tj)} .history-row:first-child .history-text`)).toBe('{"temp":22.25,"air.humidity":45,"seq":3,"uptime_ms":1000}');
    // A new write shows up while it is open.
    await writeJson(svc.port, f.tj, '{"temp":19,"seq":4,"uptime_ms":2000}');
    await until(page, `document.querySelectorAll('${card(f.tj)} .history-row').length === 4`);

    // The CSV: a download from this page, the same file the service makes.
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator(`${card(f.tj)} .csv-button`).click()]);
    expect(download.suggestedFilename()).toBe(`device-${f.tj.id}-history.csv`);
    const saved = readFileSync(await download.path(), 'utf8');
    expect(saved).toBe((await call(svc.port, 'GET', `/dashboard/history?deviceId=${f.tj.id}&format=csv`)).body);
    expect(saved.split('\r\n')[0]).toBe('time (UTC),temp (C),stored text');
    expect(saved.split('\r\n')).toHaveLength(6);
    await until(page, `document.querySelector('${card(f.tj)} .csv-answer').textContent === 'saved as device-${f.tj.id}-history.csv'`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("has no Set form where a board writes, and shows an output's refusal where its value was set", async () => {
    const f: Fleet = await makeFleet(svc.port, 'set@example.com');
    await writeJson(svc.port, f.health, report(f, { refused: 2 }));
    const { page, problems } = await watched(browser);
    await page.goto(`${svc.url}/`);
    const card = (d: Dev): string => `section.device[data-device-id="${d.id}"]`;
    await until(page, `document.querySelector('${card(f.ctl)} .set-form') !== null && document.querySelector('${card(f.ctl)} .readers li') !== null`);
    // The Value device the board writes: no form, and why.
    expect(await page.locator(`${card(f.tv)} .set-form`).count()).toBe(0);
    expect(await text(page, `${card(f.tv)} .board-writes`)).toBe(`A board writes this device (readings of device tv in configuration #${f.cfg.id}): no Set form, its next write would replace a value set here.`);
    for (const d of [f.tj, f.tx, f.health]) expect(await page.locator(`${card(d)} .board-writes`).isVisible()).toBe(true);
    expect(await page.locator(`${card(f.ctl)} .board-writes`).isVisible()).toBe(false);

    // The control device: the relay that reads it, and its refused count.
    expect(await text(page, `${card(f.ctl)} .readers li`)).toMatch(new RegExp(`^board pico-w ${UID}: output relay \\(digital, takes 0/1, on/off or true/false\\): 10 read\\(s\\), 2 refused, 1 failed, reported \\d+ s ago$`));
    await page.locator(`${card(f.ctl)} .set-value`).fill('50%');
    await page.locator(`${card(f.ctl)} .set-button`).click();
    await until(page, `(document.querySelector('${card(f.ctl)} .set-answer')?.textContent ?? '').startsWith('ok: ')`);
    expect(await text(page, `${card(f.ctl)} .set-answer`)).toBe(`ok: Value updated; output relay of board pico-w ${UID} refuses it: not 0/1, on/off or true/false`);
    expect(await page.locator(`${card(f.ctl)} .set-answer`).getAttribute('class')).toBe('set-answer warn');
    // The board's next report counts one more refused value: said beside the form.
    await writeJson(svc.port, f.health, report(f, { refused: 3 }));
    await until(page, `(document.querySelector('${card(f.ctl)} .set-refused')?.textContent ?? '') !== ''`);
    expect(await text(page, `${card(f.ctl)} .set-refused`)).toBe(`output relay of board pico-w ${UID} refused a value since (3 refused in all)`);
    // A value the relay takes: no warning.
    await page.locator(`${card(f.ctl)} .set-value`).fill('on');
    await page.locator(`${card(f.ctl)} .set-button`).click();
    await until(page, `document.querySelector('${card(f.ctl)} .set-answer')?.textContent === 'ok: Value updated'`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('reads at 420 px wide without scrolling sideways, and asks for nothing the service does not have', async () => {
    const f = await makeFleet(svc.port, 'narrow@example.com');
    await writeJson(svc.port, f.health, report(f));
    const { page, problems } = await watched(browser, 420);
    const requested: string[] = [];
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    await page.goto(`${svc.url}/`);
    const row = `#health tr[data-device-id="${f.health.id}"]`;
    await until(page, `document.querySelector('${row}') !== null && document.querySelector('section.device[data-device-id="${f.cfg.id}"] .config-text')?.value !== ''`);
    // Open every history so the widest content is on the page.
    for (const s of await page.locator('.history summary').all()) await s.click();
    await until(page, `document.querySelectorAll('.history-row').length > 0`);
    const widths = await page.evaluate<number[]>(`[document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth]`);
    expect(widths[2]).toBe(420);
    expect(widths[0]).toBeLessThanOrEqual(420);
    expect(widths[1]).toBeLessThanOrEqual(420);
    // The board's row is a block of labelled lines, every cell inside the screen.
    expect(await page.evaluate(`getComputedStyle(document.querySelector('${row} td')).display`)).toBe('block');
    expect(await page.evaluate(`getComputedStyle(document.querySelector('${row} .health-heap'), '::before').content`)).toBe('"Heap: "');
    const rightmost = await page.evaluate<number>(`Math.max(...[...document.querySelectorAll('body *')].map((e) => e.getBoundingClientRect().right))`);
    expect(rightmost).toBeLessThanOrEqual(420);
    // The icon is there for the browser that asks.
    expect(await page.evaluate(`fetch('/favicon.ico').then((r) => r.status + ' ' + r.headers.get('content-type'))`)).toBe('200 image/png');
    expect(requested.filter((p) => p === '/').length).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });
});
