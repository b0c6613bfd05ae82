// A service that refuses one device's writes for 90 s (an unknown key, a
// device made again, a format that no longer matches), then takes them
// again: real HTTP on loopback through the agent's own service client, fake
// clock. Nothing may be lost, the order is kept, and the other devices go on.
import { afterEach, describe, expect, it } from 'vitest';
import { createSimWifi } from '../../host/ports/wifi';
import { createMemoryFileStore } from '../fakes/files';
import { Rig, byDevice, realSettle, seqIn } from './harness';
import { startTestService } from './service';
import type { TestService } from './service';

let ts: TestService | undefined;

afterEach(async () => {
  if (ts) await ts.close();
  ts = undefined;
});

async function refusedFor90s(refuse: { status: number; body: string; all?: boolean }) {
  ts = await startTestService({});
  const cfg = ts.config;
  const tj = cfg.devices.find((d) => d.name === 'tj')!;
  const rig = new Rig({ config: cfg, files: createMemoryFileStore(), wifi: createSimWifi({ ssid: 'field-net', up: true }) });
  rig.boot();
  const settle = realSettle(() => rig.agent);
  setRefuse(ts, { status: refuse.status, body: refuse.body, deviceId: refuse.all ? undefined : tj.deviceId });
  await rig.run(90000, 1000, settle);
  const during = { ...ts.received };
  const held = rig.agent.uplink.stats().held.map((h) => h.device);
  setRefuse(ts, undefined);
  await rig.run(6 * 60000, 1000, settle);
  rig.agent.sampler.stop();
  await rig.run(30000, 1000, settle);
  return { rig, during, held, received: ts.received };
}

/** The refusal the running service answers writes with (host/service/server.ts, faults.refuse). */
function setRefuse(t: TestService, r: { status: number; body: string; deviceId?: number } | undefined): void {
  t.faults.refuse = r;
}

describe('a refusal the operator can fix, for 90 s', () => {
  it.each([
    [401, 'unknown API key'],
    [403, 'forbidden'],
    [404, 'no such device'],
    [409, 'device format is JSON'],
    [200, '{"error":"unknown API key"}'],
  ])('HTTP %i %s: 0 readings lost, order kept, the other devices unaffected', async (status, body) => {
    const { rig, during, held, received } = await refusedFor90s({ status, body });
    expect(held).toEqual(['tj']);
    const produced = byDevice(rig.produced);
    // While tj was held, the other two devices' readings arrived (0 s to 80 s at least).
    expect((during['tv'] ?? []).length).toBeGreaterThanOrEqual(9);
    expect((during['tx'] ?? []).length).toBeGreaterThanOrEqual(9);
    expect(during['tj'] ?? []).toEqual([]);
    for (const n of ['tv', 'tj', 'tx']) expect(received[n], n).toEqual(produced[n]);
    const tj = (received['tj'] ?? []).map(seqIn);
    expect(tj).toEqual(rig.produced.filter((r) => r.device === 'tj').map((r) => r.seq));
    expect(rig.queue.stats()).toMatchObject({ depth: 0, dropped: 0, rejected: 0 });
    expect(rig.agent.uplink.stats().held).toEqual([]);
    // Said once when the hold began, once when it ended.
    expect(rig.p.errors.filter((l) => l.includes('device tj held')).length).toBe(1);
    expect(rig.p.lines.filter((l) => l.includes('device tj delivers again')).length).toBe(1);
  });

  it('every device refused with 401: nothing lost, everything delivered in order once the key works again', async () => {
    const { rig, received, held } = await refusedFor90s({ status: 401, body: 'unknown API key', all: true });
    expect(held.sort()).toEqual(['tj', 'tv', 'tx']);
    const produced = byDevice(rig.produced);
    for (const n of ['tv', 'tj', 'tx']) expect(received[n], n).toEqual(produced[n]);
    expect(rig.queue.stats()).toMatchObject({ depth: 0, dropped: 0, rejected: 0 });
  });

  it('HTTP 400 and 413 refuse the record itself: it is rejected, counted, and the queue moves on', async () => {
    for (const status of [400, 413]) {
      const { rig, received } = await refusedFor90s({ status, body: 'malformed data' });
      const produced = byDevice(rig.produced);
      const rejected = rig.queue.stats().rejected;
      expect(rejected).toBeGreaterThanOrEqual(9);
      expect(rig.agent.uplink.stats().held).toEqual([]);
      // The refused ones are gone, the rest of tj arrived in order; the others all arrived.
      expect((received['tj'] ?? []).length + rejected).toBe(produced['tj']!.length);
      for (const n of ['tv', 'tx']) expect(received[n], n).toEqual(produced[n]);
      await ts!.close();
      ts = undefined;
    }
  });
});
