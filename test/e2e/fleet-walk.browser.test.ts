// The walk of issue 36 from a dashboard edit to a board reporting the new
// configuration, on the runtime rig (fake clock, real HTTP to a local
// service, the page in headless Chromium): a board whose configuration device
// holds its own configuration (as provision() writes the first document)
// reports it run; a person edits the document on the device's card (an
// invalid edit is shown inline and stored nowhere), writes a valid one; within
// one remote.pollMs the board applies it, and its next health report shows the
// new config.json CRC from the service, the document's CRC and "applied" on
// the board's row and the card.
// In CI Chromium is installed by .ci/run, so a missing browser fails there instead of skipping.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { CODEC } from '../../src/config/codec';
import type { AgentConfig } from '../../src/config/types';
import { crc32 } from '../../src/queue/crc32';
import { documentCrc } from '../../host/service/fleet';
import { startService } from '../../host/service/server';
import type { RunningService } from '../../host/service/server';
import { testConfig } from '../fakes/config';
import { provisionConfig, provisionControl, provisionHealth } from '../fakes/provision';
import { launchChromium, present } from '../fakes/browser';
import { until } from '../service-local/browser-until';
import { Board } from '../runtime/harness';
import type { Booted } from '../runtime/harness';

/** The first document of a configuration device: the board's saved configuration, secrets and remote.* left out. */
function firstDocument(c: AgentConfig): string {
  const d = JSON.parse(CODEC.text(c)) as Record<string, unknown>;
  delete d.wifi;
  delete d.service;
  delete d.remote;
  return JSON.stringify(d);
}

const crcOfFile = (b: Uint8Array): string => crc32(b, 0, b.length).toString(16);

describe.skipIf(!present)('from a dashboard edit to the board reporting the new configuration', () => {
  let browser: Browser;
  let svc: RunningService;
  let dir: string;
  let b: Booted | undefined;

  beforeAll(async () => {
    browser = await launchChromium();
    dir = mkdtempSync(join(tmpdir(), 'walk-'));
    svc = await startService({ dataDir: dir, log: () => undefined });
  });
  afterAll(async () => {
    b?.rt.stop();
    await browser?.close();
    await svc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the edited document, and the board applies it and reports its new CRC', async () => {
    const email = 'walk@example.com';
    const password = 'pw-walk-0001';
    let cfg = await provisionConfig(svc.url, testConfig(svc.url), email, password);
    cfg = await provisionHealth(svc.url, cfg, 60000, email, password);
    cfg.agent.lkgRevertMs = 1800000;
    const conf = await provisionControl(svc.url, cfg, 'remote', 'JSON', firstDocument(cfg), email, password);
    cfg.remote = { id: conf.id, pin: conf.pin, pollMs: 60000 };
    const board = new Board();
    board.save(cfg);
    b = board.boot();
    const booted = b;
    await booted.run(65000);
    const before = crcOfFile(board.files.read('config.json') as Uint8Array);

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${svc.url}/`);
    const row = `#health tr[data-device-id="${cfg.health.id}"]`;
    const card = `section.device[data-device-id="${conf.id}"]`;
    await until(page, `document.querySelector('${row}') !== null && document.querySelector('${card} .config-user') !== null`);
    expect(await page.locator(`${row} .health-config`).textContent()).toBe(`${before} (flash.sh)`);
    expect(await page.locator(`${row} .health-remote`).textContent()).toMatch(new RegExp(`^#${conf.id} crc [0-9a-f]+: unchanged`));
    expect(await page.locator(`${card} .config-user`).textContent()).toMatch(/: runs the stored document$/);

    // The edit: an invalid value is said inline and stored nowhere; then a valid one is written.
    const area = `${card} .config-text`;
    const doc = JSON.parse(await page.locator(area).inputValue()) as { sensors: { intervalMs: number }[] };
    doc.sensors[0]!.intervalMs = 10;
    await page.locator(area).fill(JSON.stringify(doc, null, 2));
    await until(page, `/^sensor\\.temp\\.intervalMs: /.test(document.querySelector('${card} .config-errors li')?.textContent ?? '')`);
    doc.sensors[0]!.intervalMs = 20000;
    await page.locator(area).fill(JSON.stringify(doc, null, 2));
    await until(page, `document.querySelector('${card} .config-answer').textContent === 'valid: Write stores it for the boards'`);
    await page.locator(`${card} .config-write`).click();
    await until(page, `document.querySelector('${card} .config-answer').textContent === 'ok: JSON updated'`);

    // Within one remote.pollMs the board reads and applies it; its next report says so.
    await booted.run(65000);
    const after = crcOfFile(board.files.read('config.json') as Uint8Array);
    expect(after).not.toBe(before);
    expect(booted.rt.config().sensors[0]!.intervalMs).toBe(20000);
    await until(page, `document.querySelector('${row}')?.getAttribute('data-config-crc') === '${after}'`, 10000);
    expect(await page.locator(`${row} .health-config`).textContent()).toBe(`${after} (service)`);
    expect(await page.locator(`${row} .health-remote`).getAttribute('class')).not.toContain('refused');
    const crc = await page.locator(card).locator('.config').getAttribute('data-crc');
    expect(crc).toBe(documentCrc(JSON.stringify({ ...JSON.parse(firstDocument(cfg)), sensors: doc.sensors })));
    expect(await page.locator(`${row} .health-remote`).textContent()).toMatch(new RegExp(`^#${conf.id} crc ${crc}: applied`));
    await until(page, `/: applied \\(document crc ${crc}\\): runs the stored document$/.test(document.querySelector('${card} .config-user')?.textContent ?? '')`);
    expect(problems).toEqual([]);
    await page.close();
  });
});
