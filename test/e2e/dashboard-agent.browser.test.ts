// The agent writes, the dashboard shows it: the local service's page in
// headless Chromium displays the value the agent delivered. In CI Chromium is
// installed by .ci/run, so a missing browser fails there instead of skipping.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createAgent } from '../../src/agent/agent';
import { provisionDevice } from '../../src/agent/provision';
import { createHttpClient } from '../../src/net/http';
import { createMemoryOutbox } from '../../src/queue/memory';
import { createServiceOps } from '../../src/service/reads';
import { createNodeSockets } from '../../host/ports/sockets';
import { createNodeTime } from '../../host/ports/time';
import { startService } from '../../host/service/server';
import type { RunningService, WriteEvent } from '../../host/service/server';
import { testConfig } from '../fakes/config';
import { provisionConfig, provisionHealth } from '../fakes/provision';
import { Board } from '../runtime/harness';
import { createTestPlatform } from '../fakes/platform';
import { createFakeTime, flushPromises } from '../fakes/time';
import { launchChromium, present } from '../fakes/browser';
import { until } from '../service-local/browser-until';

describe.skipIf(!present)('dashboard shows what the agent delivered', () => {
  let svc: RunningService;
  let dir: string;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dash-'));
    svc = await startService({ dataDir: dir, log: () => undefined });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await svc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('displays the last value the agent wrote to its Value device', async () => {
    const { timers } = createNodeTime();
    const made = createServiceOps({ http: createHttpClient({ sockets: createNodeSockets(), timers }), baseUrl: svc.url });
    if (!made.ok) throw new Error(made.error);
    const cfg = testConfig(svc.url);
    cfg.devices = [cfg.devices[0]!];
    const r = await provisionDevice({ client: made.client, email: 'dash@example.com', password: 'pw-dash-1', deviceName: 'Boiler', format: 'Value' });
    if (!r.ok) throw new Error(r.error);
    Object.assign(cfg.devices[0]!, { deviceId: r.deviceId, devicePin: r.devicePin });
    cfg.service.apiKey = r.apiKey;

    const writes: WriteEvent[] = [];
    svc.events.on('write', (w: WriteEvent) => writes.push(w));
    const time = createFakeTime();
    const a = createAgent({ p: createTestPlatform({ time }), config: cfg, queue: createMemoryOutbox({ maxRecords: 100 }), bootId: 1 });
    if (!a.ok) throw new Error(a.error);
    const settle = async (): Promise<void> => {
      await flushPromises();
      while (a.agent.uplink.stats().inFlightSinceMs !== undefined) await new Promise((res) => setTimeout(res, 1));
      await flushPromises();
    };
    a.agent.start();
    await time.advance(30000, settle);
    a.agent.stop();
    expect(writes).toHaveLength(4);
    const last = writes[3]!.content;
    expect(last).toMatch(/^\d+\.\d\d$/);

    const page = await browser.newPage();
    await page.goto(`${svc.url}/`);
    const card = `section.device[data-device-id="${r.deviceId}"]`;
    await page.waitForSelector(`${card} .last-value`, { timeout: 5000 });
    await until(page, `document.querySelector('${card} .last-value')?.textContent === '${last}'`, 5000);
    expect(await page.locator(`${card} .last-value`).textContent()).toBe(last);
    expect(await page.locator(`${card} .chart`).getAttribute('data-points')).toBe('4');
  });

  it("lists the board's health report in the health table, from the runtime's own reports", async () => {
    const cfg = await provisionHealth(svc.url, await provisionConfig(svc.url, testConfig(svc.url), 'hdash@example.com', 'pw-hdash-1'), 60000, 'hdash@example.com', 'pw-hdash-1');
    const board = new Board();
    board.save(cfg);
    const b = board.boot();
    await b.run(8000);
    b.rt.stop();
    const page = await browser.newPage();
    await page.goto(`${svc.url}/`);
    const row = `#health tr[data-device-id="${cfg.health.id}"]`;
    await page.waitForSelector(row, { timeout: 5000 });
    const cells = await page.locator(`${row} td`).allTextContents();
    expect(cells[0]).toBe('pico-w ' + b.p.system.boardUid());
    expect(cells[2]).toBe('0.1.0');
    expect(await page.locator(`${row} .health-state`).textContent()).toBe('ok');
    expect(await page.locator('#health-box').isVisible()).toBe(true);
  });
});
