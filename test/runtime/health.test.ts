// The agent's health as a JSON device of its own (health.id / health.pin):
// one report at the first supervisor tick and every health.intervalMs after,
// written to the local service like any write, never onto the outbox.
import { describe, expect, it } from 'vitest';
import { healthReport } from '../../src/agent/health';
import { testConfig } from '../fakes/config';
import { provisionHealth } from '../fakes/provision';
import { Board, DEAD_URL, provisioned, sharedService } from './harness';

const service = sharedService();

const KEYS = ['fw', 'board', 'uid', 'boot', 'uptimeS', 'intervalS', 'lastReset', 'mode', 'heap', 'config', 'configSource', 'outbox', 'delivery', 'link', 'rssi', 'clockSynced', 'sampler', 'held', 'error'];

describe('health reports', () => {
  it('go to their own device every interval, with every field, and no secret', async () => {
    const board = new Board();
    const cfg = await provisionHealth(service.svc.url, await provisioned(service.svc.url, testConfig()));
    board.save(cfg);
    const b = board.boot();
    await b.run(70000);
    const n = b.out().length;
    b.cmd.status!();
    expect(b.out().slice(n)).toContain('health    device ' + cfg.health.id + ', 2 reports, last 5 s ago, every 60 s');
    b.rt.stop();
    const reports = service.writes.filter((w) => w.deviceId === cfg.health.id);
    // At the first supervisor tick (5 s), then one interval (60 s) later.
    expect(reports).toHaveLength(2);
    expect(reports.every((w) => w.format === 'JSON')).toBe(true);
    const r = JSON.parse(reports[1]!.content) as Record<string, unknown>;
    expect(Object.keys(r)).toEqual(KEYS);
    expect(r).toMatchObject({ fw: '0.1.0', board: 'pico-w', boot: 1, intervalS: 60, mode: 'running', rssi: null, clockSynced: true, error: null });
    expect(r.lastReset).toBe('first boot: no earlier boot state on flash');
    expect(r.uptimeS).toBeGreaterThanOrEqual(64);
    expect(r.outbox).toMatchObject({ dropped: 0, rejected: 0 });
    expect(r.delivery).toMatchObject({ retries: 0, rejected: 0 });
    expect((r.delivery as { readings: number }).readings).toBeGreaterThanOrEqual(18);
    expect(r.link).toMatchObject({ up: true, radioResets: 0, reboots: 0 });
    expect(r.config).toMatch(/^[0-9a-f]{1,8}$/);
    // Saved by a tool (the harness), as flash.sh --config does; no configuration device, so no "remote".
    expect(r.configSource).toBe('flash.sh');
    const all = reports.map((w) => w.content).join('\n');
    expect(all).not.toContain(cfg.service.apiKey);
    expect(all).not.toContain(cfg.wifi.password);
  });

  it('while the service cannot be reached: nothing joins the outbox but readings, and the last error is masked', async () => {
    const board = new Board();
    const cfg = await provisionHealth(service.svc.url, await provisioned(service.svc.url, testConfig()));
    cfg.service.url = DEAD_URL;
    board.save(cfg);
    const b = board.boot();
    await b.run(95000);
    // Sample groups at 0, 10, ..., 90 s: three readings each, and not one report.
    expect(b.rt.queue()!.stats().depth).toBe(30);
    const made = JSON.parse(healthReport(b.rt)) as { error: string; outbox: { depth: number; oldestS: number } };
    b.rt.stop();
    expect(made.outbox.depth).toBe(30);
    expect(made.outbox.oldestS).toBeGreaterThanOrEqual(90);
    expect(made.error).toMatch(/connect|refused|ECONNREFUSED/i);
    expect(made.error).not.toContain(cfg.service.apiKey);
  });

  it('stay off without health.id', async () => {
    const board = new Board();
    const cfg = await provisioned(service.svc.url, testConfig());
    board.save(cfg);
    const before = service.writes.length;
    const b = board.boot();
    await b.run(30000);
    b.rt.stop();
    const ids = new Set(cfg.devices.map((d) => d.deviceId));
    expect(service.writes.slice(before).every((w) => ids.has(w.deviceId))).toBe(true);
  });
});
