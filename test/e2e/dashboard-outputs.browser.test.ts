// An output driven from the dashboard: a person types a value into a Value
// device's card and presses Set; the service stores it through its own API;
// the agent, reading that device every pollMs, switches its relay on GP16;
// the dashboard's "Simulated board" panel shows the pin's new level.
//  1. on the runtime rig (fake clock, real HTTP to a local service): the pin
//     follows within one poll (5 s of the board's time);
//  2. on `npm start` itself (real time): its sim_control device and relay,
//     the panel and the console line, within a generous bound.
// In CI Chromium is installed by .ci/run, so a missing browser fails there instead of skipping.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { provisionDevice } from '../../src/agent/provision';
import type { AgentConfig } from '../../src/config/types';
import { createHttpClient } from '../../src/net/http';
import { createServiceOps } from '../../src/service/reads';
import type { SimPins } from '../../host/ports/pins';
import { createNodeSockets } from '../../host/ports/sockets';
import { createNodeTime } from '../../host/ports/time';
import { boardPanel } from '../../host/sim-board';
import { startService } from '../../host/service/server';
import type { RunningService } from '../../host/service/server';
import { testConfig } from '../fakes/config';
import { provisionConfig } from '../fakes/provision';
import { launchChromium, present } from '../fakes/browser';
import { until } from '../service-local/browser-until';
import { interrupt, npmStart } from '../fakes/child';
import { Board } from '../runtime/harness';
import type { Booted } from '../runtime/harness';

const POLL_MS = 5000;

/** Types `value` into a card's form, presses Set and waits for the service's answer. */
async function setFromCard(page: Page, deviceId: number, value: string): Promise<string> {
  const card = `section.device[data-device-id="${deviceId}"]`;
  await page.locator(`${card} .set-value`).fill(value);
  await page.locator(`${card} .set-button`).click();
  await until(page, `/^(ok|error)/.test(document.querySelector('${card} .set-answer')?.textContent ?? '')`, 5000);
  return (await page.locator(`${card} .set-answer`).textContent()) ?? '';
}

/** Waits for the panel's row of `gpio` to show `level` (data-level) and returns its cells. */
async function panelShows(page: Page, gpio: number, level: string, timeout: number): Promise<string[]> {
  const row = `#board tr[data-gpio="${gpio}"]`;
  await until(page, `document.querySelector('${row}')?.getAttribute('data-level') === '${level}'`, timeout);
  return page.locator(`${row} td`).allTextContents();
}

describe.skipIf(!present)('an output set from the dashboard', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe('on the runtime rig', () => {
    let svc: RunningService;
    let dir: string;
    let b: Booted | undefined;
    let cfg: AgentConfig;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'dash-out-'));
      // The panel as npm start gives it: the booted board's pins, named after its config.
      svc = await startService({ dataDir: dir, log: () => undefined, board: () => (b ? boardPanel(b.p.pins as SimPins, cfg.outputs, 'rig') : undefined) });
    });
    afterAll(async () => {
      b?.rt.stop();
      await svc?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('switches GP16 within one poll of each Set, and the panel shows it', async () => {
      const email = 'out@example.com';
      const password = 'pw-out-0001';
      cfg = await provisionConfig(svc.url, testConfig(svc.url), email, password);
      const made = createServiceOps({ http: createHttpClient({ sockets: createNodeSockets(), timers: createNodeTime().timers }), baseUrl: svc.url });
      if (!made.ok) throw new Error(made.error);
      const c = await provisionDevice({ client: made.client, email, password, deviceName: 'control', format: 'Value', apiKey: cfg.service.apiKey });
      if (!c.ok) throw new Error(c.error);
      const w = await made.client.writeValue({ apiKey: c.apiKey, deviceId: c.deviceId, devicePin: c.devicePin }, '0');
      expect(w.kind).toBe('ok');
      cfg.outputs = [{ name: 'relay', kind: 'digital', pin: 16, sourceId: c.deviceId, sourcePin: c.devicePin, field: '', pollMs: POLL_MS, safe: 0, failsafeMs: 600000, invert: false }];

      const board = new Board();
      board.save(cfg);
      b = board.boot();
      const booted = b;
      const gp16 = () => (booted.p.pins as SimPins).outputs().find((o) => o.pin === 16);
      // Boot and a first good read of the stored 0.
      await booted.run(POLL_MS + 1000);
      expect(gp16()).toMatchObject({ kind: 'digital', level: 0, open: true });

      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(`${svc.url}/`);
      await page.waitForSelector(`section.device[data-device-id="${c.deviceId}"] .set-button`, { timeout: 5000 });
      expect(await panelShows(page, 16, '0', 5000)).toEqual(['GP16', 'relay', 'digital', 'off', expect.stringMatching(/^\d+$/)]);

      for (const [value, level, shown] of [['1', 1, 'ON'], ['0', 0, 'off']] as const) {
        expect(await setFromCard(page, c.deviceId, value)).toBe('ok: Value updated');
        // Stored: the service's own read gives it back.
        const stored = await made.client.readValue({ apiKey: c.apiKey, deviceId: c.deviceId, devicePin: c.devicePin });
        expect(stored.kind === 'ok' ? stored.value : stored.reason).toBe(value);
        expect(gp16()!.level).toBe(1 - level);
        // One poll of the board's clock (reads settle in real time on the way).
        await booted.run(POLL_MS);
        expect(gp16()).toMatchObject({ level, open: true });
        const cells = await panelShows(page, 16, String(level), 5000);
        expect(cells.slice(0, 4)).toEqual(['GP16', 'relay', 'digital', shown]);
      }
      expect(pageErrors).toEqual([]);
    });
  });

  describe('on npm start', () => {
    const data = mkdtempSync(join(tmpdir(), 'start-out-'));
    let proc: ChildProcessWithoutNullStreams | undefined;

    afterAll(async () => {
      if (proc) await interrupt(proc);
      rmSync(data, { recursive: true, force: true });
    });

    it("provisions sim_control and the relay; Set on the dashboard switches GP16, printed and in the panel", { timeout: 90000 }, async () => {
      const started = npmStart(data, ['--interval-ms', '2000']);
      proc = started.proc;
      const { waitFor } = started;
      const [, url] = await waitFor(/Device Data Service \(local\) at (http:\/\/127\.0\.0\.1:\d+)\/api\//);
      const [, id] = await waitFor(/provisioned Value device sim_control \(stored value 0\) for the relay on GP16: DeviceID (\d+)/, 60000);
      const deviceId = Number(id);
      await waitFor(/GP16 relay: digital output, off/);

      const page = await browser.newPage();
      await page.goto(`${url}/`);
      const card = `section.device[data-device-id="${deviceId}"]`;
      await until(page, `document.querySelector('${card} .last-value')?.textContent === '0'`, 5000);
      expect(await page.locator(`${card} .device-name`).textContent()).toBe('sim_control');
      expect(await panelShows(page, 16, '0', 5000)).toEqual(['GP16', 'relay', 'digital', 'off', expect.stringMatching(/^\d+$/)]);
      expect(await page.locator('#board-title').textContent()).toMatch(/^pico-w HOST\d+, simulated by npm start$/);

      // Within one poll (5 s) plus the time to deliver what is queued: 15 s is generous.
      expect(await setFromCard(page, deviceId, '1')).toBe('ok: Value updated');
      expect((await panelShows(page, 16, '1', 15000))[3]).toBe('ON');
      await waitFor(/\d\d:\d\d:\d\d {2}GP16 relay: off -> ON\n/, 5000);

      expect(await setFromCard(page, deviceId, '0')).toBe('ok: Value updated');
      expect((await panelShows(page, 16, '0', 15000))[3]).toBe('off');
      await waitFor(/GP16 relay: ON -> off\n/, 5000);

      // No API key (32 hex digits) in the page.
      expect((await page.locator('body').textContent()) ?? '').not.toMatch(/[0-9a-f]{32}/);

      expect(await interrupt(proc)).toBe(0);
    });
  });
});
