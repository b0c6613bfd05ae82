// The recovery ladder's rule for connections the socket port abandoned: the
// radio is never power-cycled while one is left (Kaluma's driver would close
// it and free its PCB a second time); the ladder reboots instead. And how
// soon a node delivers once the access point is back, with the ladder's
// costly steps kept rare while the link is checked often.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSimWifi } from '../../host/ports/wifi';
import type { SimWifi } from '../../host/ports/wifi';
import { createLink, LADDER } from '../../src/agent/link';
import type { WriteOutcome } from '../../src/agent/uplink';
import { testConfig } from '../fakes/config';
import { createMemoryFileStore } from '../fakes/files';
import { Rig, seeded } from '../faults/harness';

function ladder(abandoned: number) {
  const wifi = createSimWifi({ ssid: 'field-net', up: false });
  wifi.setAp(false);
  const errors: string[] = [];
  let reboots = 0;
  const link = createLink({
    wifi,
    creds: () => ({ ssid: 'field-net', password: 'secret-pass' }),
    system: { boardName: () => 'pico-w', boardUid: () => '', memory: () => undefined, reboot: () => void reboots++, seedRandom: () => undefined },
    log: { info: () => undefined, error: (l) => void errors.push(l) },
    abandoned: () => abandoned,
  });
  return { wifi, link, errors, reboots: () => reboots };
}

describe('link ladder and abandoned connections', () => {
  it('power-cycles the radio after failed joins when no connection is abandoned', async () => {
    const l = ladder(0);
    for (let i = 0; i <= LADDER.resetAfterFailedJoins; i++) await l.link.ensureUp();
    expect([l.wifi.counts.resets, l.reboots()]).toEqual([1, 0]);
  });

  it('reboots instead of resetting the radio while a connection is abandoned', async () => {
    const l = ladder(2);
    for (let i = 0; i <= LADDER.resetAfterFailedJoins; i++) await l.link.ensureUp();
    expect([l.wifi.counts.resets, l.reboots()]).toEqual([0, 1]);
    expect(l.link.stats().lastStep).toBe('reboot');
    expect(l.errors).toEqual(['link: 3 failed joins and 2 abandoned connections (a radio reset would free them twice); rebooting']);
  });
});

// Recovery after the access point returns, on the fake clock: the whole agent
// on a rig that really reboots, the test config at 1 s (three sensors; a
// Value, a JSON and an XML device), a writer that answers 200 while the
// station is associated and fails like Kaluma's socket otherwise.
// Assumed radio times (not measured): a scan 1.5 s, an association with DHCP
// 2 s, a radio power-cycle 1 s.
const SCAN_MS = 1500;
const CONNECT_MS = 2000;
const RESET_MS = 1000;
const DROP_AT_MS = 20000;

async function recovery(outageMs: number, seed: number) {
  vi.spyOn(Math, 'random').mockImplementation(seeded(seed));
  const sim = createSimWifi({ ssid: 'field-net', up: true });
  const wait = (ms: number): Promise<void> => new Promise((r) => void rig.time.timers.setTimeout(r, ms));
  const wifi: SimWifi = {
    ...sim,
    scan: async () => (await wait(SCAN_MS), sim.scan()),
    connect: async (c) => (await wait(CONNECT_MS), sim.connect(c)),
    reset: async () => {
      steps.push({ step: 'reset', atMs: rig.now(), boot: rig.bootId });
      await wait(RESET_MS);
      return sim.reset();
    },
  };
  const steps: { step: string; atMs: number; boot: number }[] = [];
  const bootAt = [0, 0];
  const watch = (): void => {
    if (rig.reboots === bootAt.length - 2) return;
    steps.push({ step: 'reboot', atMs: rig.now(), boot: rig.bootId });
    bootAt.push(rig.now());
  };
  const oks: number[] = [];
  const write = async (): Promise<WriteOutcome> => {
    if (!(await sim.isUp())) return { kind: 'retry', reason: 'WiFi is not connected.', bytesSent: 0 };
    oks.push(rig.now());
    return { kind: 'ok', status: 200, bytesSent: 100 };
  };
  const config = testConfig();
  for (const s of config.sensors) s.intervalMs = 1000;
  const rig: Rig = new Rig({ config, files: createMemoryFileStore(), wifi, forget: true, writer: { writeValue: write, writeJson: write, writeXml: write } });
  rig.boot();
  await rig.run(DROP_AT_MS, 1000, undefined, watch);
  sim.setAp(false);
  await rig.run(outageMs, 1000, undefined, watch);
  const backAt = rig.now();
  const scans = sim.counts.scans;
  sim.setAp(true);
  await rig.run(30000, 1000, undefined, watch);
  const first = oks.find((t) => t >= backAt);
  return { afterMs: first === undefined ? Infinity : first - backAt, scansPerHour: (scans * 3600000) / outageMs, steps, bootAt };
}

describe('recovery once the access point is back', () => {
  afterEach(() => void vi.restoreAllMocks());

  for (const min of [2, 10, 60]) {
    it(`first write within 15 s of its return after a ${min} min outage`, async () => {
      for (const seed of [1, 2, 3]) {
        const r = await recovery(min * 60000, seed);
        expect(r.afterMs, 'seed ' + seed).toBeLessThanOrEqual(15000);
      }
    });
  }

  it('keeps radio resets and reboots 10 min apart in a boot however often the link is checked', async () => {
    const r = await recovery(3600000, 1);
    // A check every 5 to 10 s, each a 1.5 s scan: about 400 scans an hour.
    expect(r.scansPerHour).toBeGreaterThan(360);
    expect(r.scansPerHour).toBeLessThan(720);
    // Three resets then a reboot, one step per LADDER.stepMs: six resets and one reboot in the hour.
    expect(r.steps.map((s) => s.step)).toEqual(['reset', 'reset', 'reset', 'reboot', 'reset', 'reset', 'reset']);
    for (let i = 1; i < r.steps.length; i++) {
      const [a, b] = [r.steps[i - 1]!, r.steps[i]!];
      if (a.boot === b.boot) expect(b.atMs - a.atMs).toBeGreaterThanOrEqual(LADDER.stepMs);
    }
    // A boot ends long after it was marked healthy (2 min): an outage never counts as rapid boots towards safe mode.
    for (const s of r.steps.filter((x) => x.step === 'reboot')) expect(s.atMs - r.bootAt[s.boot]!).toBeGreaterThan(3 * LADDER.stepMs);
  });
});
