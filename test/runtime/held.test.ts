// A key the service does not know, on a whole board: the devices are held,
// the operator sees it (status(), the LED, the health report), and a save()
// with the right key delivers every reading at once, in order.
import { describe, expect, it } from 'vitest';
import { healthReport } from '../../src/agent/health';
import { testConfig } from '../fakes/config';
import { provisionHealth } from '../fakes/provision';
import { Board, provisioned, sharedService } from './harness';
import type { Booted } from './harness';

const service = sharedService();

/** The LED's rising edges over `ms`, sampled every 50 ms. */
async function blinks(b: Booted, ms: number): Promise<number> {
  const pins = b.p.pins as unknown as { ledOn(): boolean };
  let n = 0;
  let was = pins.ledOn();
  for (let t = 0; t < ms; t += 50) {
    await b.run(50);
    const on = pins.ledOn();
    if (on && !was) n++;
    was = on;
  }
  return n;
}

describe('an API key the service does not know', () => {
  it('holds every reading, says so, and delivers them all at once after save() with the right key', async () => {
    const board = new Board();
    const good = await provisionHealth(service.svc.url, await provisioned(service.svc.url, testConfig()));
    const cfg = structuredClone(good);
    cfg.service.apiKey = 'k'.repeat(good.service.apiKey.length);
    board.save(cfg);
    const before = service.writes.length;
    const b = board.boot();
    await b.run(45000);
    const held = b.rt.agent()!.uplink.stats().held;
    expect(held.map((h) => h.device).sort()).toEqual(['tj', 'tv', 'tx']);
    expect(held.every((h) => h.status === 401)).toBe(true);
    // Nothing dropped, nothing rejected: sample groups at 0 s to 40 s wait.
    expect(b.rt.queue()!.stats()).toMatchObject({ depth: 15, dropped: 0, rejected: 0 });
    expect(service.writes.length).toBe(before);
    // The LED: three blinks every 2 s.
    expect(await blinks(b, 4000)).toBe(6);
    // status(): one line per held device, with the cause and what to do.
    const n = b.out().length;
    b.cmd.status!();
    // Lines longer than the terminal go on, indented, on the next.
    const lines = b.out().slice(n).join('\n').replace(/\n {2,}/g, ' ').split('\n');
    const tj = lines.find((l) => l.includes('device tj'));
    expect(tj).toMatch(/^held +device tj: HTTP 401 .*, since (\d\d:\d\d UTC, )?\d+ s, (\d+ readings? set aside, )?next try in \d+ s; fix service\.apiKey, then save\(\)$/);
    expect(lines.join('\n')).not.toContain(cfg.service.apiKey);
    // The health report names them.
    const report = JSON.parse(healthReport(b.rt)) as { held: Record<string, { status: number; reason: string; sinceS: number }> };
    expect(Object.keys(report.held).sort()).toEqual(['tj', 'tv', 'tx']);
    expect(report.held['tj']).toMatchObject({ status: 401 });
    expect(JSON.stringify(report)).not.toContain(cfg.service.apiKey);
    // Logged once per device, not once per reading.
    expect(b.out().filter((l) => l.includes('held, its readings wait')).length).toBe(3);
    // The right key, saved: every waiting reading goes at once.
    b.cmd.set!('service.apiKey', good.service.apiKey);
    b.cmd.save!();
    await b.run(3000);
    const got = service.writes.slice(before).filter((w) => w.deviceId === good.devices[1]!.deviceId).map((w) => Number(/"seq":(\d+)/.exec(w.content)![1]));
    expect(got.length).toBeGreaterThanOrEqual(5);
    expect(got).toEqual([...got].sort((x, y) => x - y));
    expect(b.rt.queue()!.stats()).toMatchObject({ depth: 0, dropped: 0, rejected: 0 });
    expect(b.rt.agent()!.uplink.stats().held).toEqual([]);
    b.rt.stop();
  });
});
