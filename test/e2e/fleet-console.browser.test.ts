// The dashboard as the fleet's console with real boards behind it (issue 36):
//  1. on the runtime rig (fake clock, real HTTP to a local service): a board
//     set up with a configuration device holding its configuration. Its row
//     shows the CRC of its own config.json; the devices it writes have no
//     Set form; the relay it drives from a control device is listed on that
//     device's card with the counts its health reports give; a value the
//     relay refuses is said so when set, and again once the board reports it.
//  2. on `npm start` itself: the simulated board's row, no Set form on the
//     devices it writes, every chart with a time axis and a unit, readable
//     at 420 px, and no request of the page answered 4xx.
// In CI Chromium is installed by .ci/run, so a missing browser fails there instead of skipping.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { AgentConfig } from '../../src/config/types';
import { crc32 } from '../../src/queue/crc32';
import { startService } from '../../host/service/server';
import type { RunningService } from '../../host/service/server';
import { testConfig } from '../fakes/config';
import { provisionConfig, provisionControl, provisionHealth } from '../fakes/provision';
import { launchChromium, present, text, watched } from '../fakes/browser';
import { until } from '../service-local/browser-until';
import { interrupt, npmStart } from '../fakes/child';
import { Board } from '../runtime/harness';
import type { Booted } from '../runtime/harness';

const POLL_MS = 5000;

/** What a configuration device holds for a board here: its checked configuration's sections, the secrets left out. */
function documentOf(cfg: AgentConfig): Record<string, unknown> {
  return { board: cfg.board, sensors: cfg.sensors, devices: cfg.devices, outputs: cfg.outputs, health: cfg.health, agent: cfg.agent };
}

describe.skipIf(!present)('the fleet console with boards behind it', () => {
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

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'fleet-'));
      svc = await startService({ dataDir: dir, log: () => undefined });
    });
    afterAll(async () => {
      b?.rt.stop();
      await svc?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("shows the board's row and configuration, no Set form where it writes, and its relay's refusal where the value was set", async () => {
      const email = 'fleet@example.com';
      const password = 'pw-fleet-0001';
      let cfg = await provisionConfig(svc.url, testConfig(svc.url), email, password);
      cfg = await provisionHealth(svc.url, cfg, 60000, email, password);
      const ctl = await provisionControl(svc.url, cfg, 'relay_ctl', 'Value', '0', email, password);
      cfg.outputs = [{ name: 'relay', kind: 'digital', pin: 16, sourceId: ctl.id, sourcePin: ctl.pin, field: '', pollMs: POLL_MS, safe: 0, failsafeMs: 600000, invert: false }];
      const conf = await provisionControl(svc.url, cfg, 'fleet_cfg', 'JSON', JSON.stringify(documentOf(cfg)), email, password);

      const board = new Board();
      board.save(cfg);
      b = board.boot();
      const booted = b;
      await booted.run(POLL_MS + 3000);
      const saved = board.files.read('config.json') as Uint8Array;
      const crc = crc32(saved, 0, saved.length).toString(16);

      const { page, problems } = await watched(browser, 1280);
      await page.goto(`${svc.url}/`);
      const row = `#health tr[data-device-id="${cfg.health.id}"]`;
      await until(page, `document.querySelector('${row}') !== null`);
      expect(await text(page, `${row} .health-board`)).toBe('pico-w ' + booted.p.system.boardUid());
      // The CRC of the board's own config.json, and where it came from.
      expect(await text(page, `${row} .health-config`)).toMatch(new RegExp(`^${crc} \\(`));
      expect(await page.locator(row).getAttribute('data-config-crc')).toBe(crc);
      expect(await text(page, `${row} .health-heap`)).toMatch(/^\d+ B used/);
      expect(await text(page, `${row} .health-state`)).toBe('ok');

      // The devices the board writes: no Set form, and why; the relay's control device: a form.
      const card = (id: number): string => `section.device[data-device-id="${id}"]`;
      for (const d of cfg.devices) {
        await until(page, `document.querySelector('${card(d.deviceId)}')?.getAttribute('data-board-writes') === 'yes'`);
        expect(await page.locator(`${card(d.deviceId)} .set-form`).count()).toBe(0);
        expect(await text(page, `${card(d.deviceId)} .board-writes`)).toContain(`readings of device ${d.name} in configuration #${conf.id}`);
      }
      expect(await page.locator(`${card(ctl.id)} .set-form`).count()).toBe(1);
      // Charts over time, in the units the configuration gives.
      const [tv, tj, tx] = cfg.devices;
      expect(await text(page, `${card(tv!.deviceId)} .chart-unit`)).toBe('value (C)');
      expect(await text(page, `${card(tj!.deviceId)} .chart-unit`)).toBe('temp (C)');
      expect(await text(page, `${card(tx!.deviceId)} .chart-unit`)).toBe('light (V)');
      expect(await text(page, `${card(tj!.deviceId)} .chart-t0`)).not.toBe('');

      // The relay as the board reports it, on the card where its value is set.
      const reader = `${card(ctl.id)} .readers li[data-output="relay"]`;
      await until(page, `/: \\d+ read\\(s\\), 0 refused, 0 failed/.test(document.querySelector('${reader}')?.textContent ?? '')`);
      expect(await text(page, reader)).toMatch(new RegExp(`^board pico-w ${booted.p.system.boardUid()}: output relay \\(digital, takes 0/1, on/off or true/false\\)`));
      await page.locator(`${card(ctl.id)} .set-value`).fill('2');
      await page.locator(`${card(ctl.id)} .set-button`).click();
      await until(page, `(document.querySelector('${card(ctl.id)} .set-answer')?.textContent ?? '').startsWith('ok: ')`);
      expect(await text(page, `${card(ctl.id)} .set-answer`)).toBe(`ok: Value updated; output relay of board pico-w ${booted.p.system.boardUid()} refuses it: not 0/1, on/off or true/false`);
      // The board reads it, refuses it, keeps its level, and its next report says so.
      await booted.run(60000);
      expect((booted.p.pins as unknown as { outputs(): { pin: number; level: number }[] }).outputs().find((o) => o.pin === 16)?.level).toBe(0);
      await until(page, `document.querySelector('${reader}')?.getAttribute('data-refused') !== '0'`, 10000);
      expect(Number(await page.locator(reader).getAttribute('data-refused'))).toBeGreaterThanOrEqual(1);
      expect(await text(page, `${card(ctl.id)} .set-refused`)).toMatch(/^output relay of board pico-w \S+ refused a value since \(\d+ refused in all\)$/);
      expect(problems).toEqual([]);
      await page.close();
    });
  });

  describe('on npm start', () => {
    const data = mkdtempSync(join(tmpdir(), 'start-fleet-'));
    let proc: ChildProcessWithoutNullStreams | undefined;

    afterAll(async () => {
      if (proc) await interrupt(proc);
      rmSync(data, { recursive: true, force: true });
    });

    it("shows the simulated board's row, no Set form where it writes, charts with units, at 420 px wide, with no 4xx", { timeout: 90000 }, async () => {
      const started = npmStart(data, ['--interval-ms', '2000']);
      proc = started.proc;
      const { waitFor } = started;
      const [, url] = await waitFor(/Device Data Service \(local\) at (http:\/\/127\.0\.0\.1:\d+)\/api\//);
      const [, valueId] = await waitFor(/provisioned Value device sim_value: DeviceID (\d+)/, 60000);
      const [, controlId] = await waitFor(/provisioned Value device sim_control .*: DeviceID (\d+)/, 60000);

      const { page, problems } = await watched(browser, 420);
      await page.goto(`${url}/`);
      await until(page, `document.querySelector('#health tbody tr') !== null`, 30000);
      expect(await text(page, '#health tbody tr .health-board')).toMatch(/^pico-w HOST\d+$/);
      expect(await text(page, '#health tbody tr .health-config')).toMatch(/^[0-9a-f]+ \(/);
      const card = (id: string): string => `section.device[data-device-id="${id}"]`;
      await until(page, `document.querySelector('${card(valueId as string)} .chart')?.getAttribute('data-points') !== '0'`, 30000);
      await until(page, `document.querySelector('${card(controlId as string)} .set-form') !== null`);
      expect(await page.locator(`${card(valueId as string)} .set-form`).count()).toBe(0);
      // npm start's board has its configuration device: the service knows sim_value carries temp, in C.
      expect(await text(page, `${card(valueId as string)} .board-writes`)).toMatch(/readings of (the simulated board|device sim_value in configuration #\d+)/);
      expect(await text(page, `${card(valueId as string)} .chart-unit`)).toBe('value (C)');
      expect(await text(page, `${card(valueId as string)} .chart-time`)).toBe("time (this browser's clock)");
      // Nothing sideways at 420 px, whatever the page holds.
      const widths = await page.evaluate<number[]>(`[document.documentElement.scrollWidth, document.body.scrollWidth]`);
      expect(Math.max(...widths)).toBeLessThanOrEqual(420);
      expect(await page.evaluate(`fetch('/favicon.ico').then((r) => r.status)`)).toBe(200);
      expect(problems).toEqual([]);
      await page.close();

      expect(await interrupt(proc)).toBe(0);
    });
  });
});
