// Case 1: the access point vanishes for an hour while the board samples every
// 10 s. Requests go over real HTTP on loopback to the local service; while
// the AP is away the socket port throws like Kaluma's ("WiFi is not
// connected.") and the simulated radio sees no SSID. The link ladder climbs
// to radio resets and reboots (each reboot rebuilds the agent over the same
// flash outbox). Afterwards every reading arrives, in order, exactly once;
// the board's health reports (every 15 min) never join the backlog, and a
// relay reading its control device goes to its safe level and back.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNodeSockets } from '../../host/ports/sockets';
import { createSimWifi } from '../../host/ports/wifi';
import { createMemoryFileStore } from '../fakes/files';
import { byDevice, realSettle, Rig, seeded, seqIn } from './harness';
import { startTestService } from './service';
import type { TestService } from './service';

let ts: TestService;

beforeAll(async () => {
  ts = await startTestService(undefined, undefined, { output: true });
});

afterAll(async () => {
  vi.restoreAllMocks();
  await ts.close();
});

const MIN = 60000;

describe('a one-hour Wi-Fi outage', () => {
  it('delivers every reading after recovery, in order, none lost, none repeated', async () => {
    vi.spyOn(Math, 'random').mockImplementation(seeded(1));
    const cfg = ts.config;
    for (const s of cfg.sensors) s.intervalMs = 10000;
    let apAway = false;
    let throws = 0;
    const wifi = createSimWifi({ ssid: 'field-net', up: true });
    const sockets = createNodeSockets({
      throwOnConnect: () => {
        if (!apAway) return undefined;
        throws++;
        return 'WiFi is not connected.';
      },
    });
    const rig = new Rig({ config: cfg, files: createMemoryFileStore(), wifi, sockets, health: { deviceId: cfg.health.id, devicePin: cfg.health.pin, everyMs: 15 * MIN } });
    rig.boot();
    const settle = realSettle(() => rig.agent);

    await rig.run(5 * MIN, 1000, settle);
    const before = ts.received['tj']?.length ?? 0;
    expect(before).toBe(30);
    // The relay follows its control device (stored value 1).
    const relay = () => rig.outputs!.list[0]!;
    expect(relay()).toMatchObject({ level: 1, safe: false });
    const reportsBefore = ts.received['health']?.length ?? 0;

    apAway = true;
    wifi.setAp(false);
    await rig.run(60 * MIN, 1000, settle);
    const duringOutage = (ts.received['tj']?.length ?? 0) - before;
    const reportsDuring = (ts.received['health']?.length ?? 0) - reportsBefore;
    const queued = rig.queue.stats().depth;
    const link = rig.linkTotals();
    // Unreadable for an hour: the relay holds its safe level (0), after 10 min
    // or from the ladder's reboot on.
    const relayDuring = { ...relay() };

    apAway = false;
    wifi.setAp(true);
    // The longest backoff is 5 min; then the queue drains in one go.
    await rig.run(10 * MIN, 1000, settle);
    rig.agent.sampler.stop();
    await rig.run(MIN, 1000, settle);

    const produced = byDevice(rig.produced);
    console.log(
      `[wifi-outage] produced ${rig.produced.length} records over ${rig.bootId} boots; queued at the end of the outage ${queued}; ` +
        `socket throws ${throws}; link ladder ${JSON.stringify(link)}; radio ${JSON.stringify(wifi.counts)}`,
    );
    expect(duringOutage).toBe(0);
    expect(relayDuring).toMatchObject({ level: 0, safe: true });
    expect(relay()).toMatchObject({ level: 1, safe: false });
    // The board's health: one report at the first boot, none while away, and
    // after the outage only the latest of those made meanwhile (none queued).
    expect(reportsBefore).toBe(1);
    expect(reportsDuring).toBe(0);
    const after = (ts.received['health'] ?? []).slice(reportsBefore);
    expect(after.length).toBeGreaterThanOrEqual(1);
    expect(after.length).toBeLessThanOrEqual(3);
    expect(throws).toBeGreaterThanOrEqual(2);
    // The ladder climbed every step: SSID checks, radio power-cycles, reboots.
    expect(link['notVisible']).toBeGreaterThan(0);
    expect(link['resets']).toBeGreaterThan(0);
    expect(link['reboots']).toBeGreaterThan(0);
    expect(rig.reboots).toBe(link['reboots']);
    expect(rig.queue.stats()).toMatchObject({ depth: 0, dropped: 0, rejected: 0 });
    // Exactly what was produced, per device, in order.
    for (const d of cfg.devices) expect(ts.received[d.name], d.name).toEqual(produced[d.name]);
    const tjSeqs = (ts.received['tj'] ?? []).map((b) => seqIn(b));
    expect(tjSeqs).toEqual(rig.produced.filter((r) => r.device === 'tj').map((r) => r.seq));
    // Samples every 10 s over 76 minutes, minus the moments spent rebooting.
    expect(rig.produced.length).toBeGreaterThan(3 * 6 * 70);
  });
});
