// Outputs against the local Device Data Service: the agent's own client reads
// the control device over real HTTP on loopback, between the readings'
// writes; a person sets the stored value through the service's API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Call, Outcome } from '../../src/service/client';
import type { SimPins } from '../../host/ports/pins';
import { createSimWifi } from '../../host/ports/wifi';
import { createMemoryFileStore } from '../fakes/files';
import { setControl } from '../fakes/provision';
import { realSettle, Rig, seqIn } from '../faults/harness';
import { startTestService } from '../faults/service';
import type { TestService } from '../faults/service';

let ts: TestService;

beforeAll(async () => {
  ts = await startTestService(undefined, undefined, { output: true });
});

afterAll(async () => {
  await ts.close();
});

/** A rig whose outputs' reads go through the agent's own client, each noted with the outbox's depth at that moment. */
function rigWith(pollMs: number, sourcePin?: number) {
  const cfg = structuredClone(ts.config);
  for (const s of cfg.sensors) s.intervalMs = 10000;
  const out = cfg.outputs[0]!;
  out.pollMs = pollMs;
  if (sourcePin !== undefined) out.sourcePin = sourcePin;
  const reads: { depth: number; kind?: string }[] = [];
  const rig: Rig = new Rig({
    config: cfg, files: createMemoryFileStore(), wifi: createSimWifi({ ssid: 'field-net', up: true }),
    reader: () => ({
      call: async <T>(c: Call<T>): Promise<Outcome<T>> => {
        const note: { depth: number; kind?: string } = { depth: rig.queue.stats().depth };
        reads.push(note);
        const r = await rig.agent.client.call(c);
        note.kind = r.kind;
        return r;
      },
    }),
  });
  rig.boot();
  const pin = () => (rig.p.pins as SimPins).outputs().find((x) => x.pin === out.pin)!;
  return { cfg, rig, reads, pin, settle: realSettle(() => rig.agent) };
}

describe('an output on the local service', () => {
  it('follows the stored value within one poll, switches only on a change, keeps its level on a refused value', async () => {
    const { cfg, rig, reads, pin, settle } = rigWith(5000);
    await setControl(cfg.service.url, cfg.service.apiKey, ts.control, '1');
    await rig.run(6000, 1000, settle);
    expect(pin()).toMatchObject({ level: 1, writes: 2 });
    await setControl(cfg.service.url, cfg.service.apiKey, ts.control, 'off');
    await rig.run(6000, 1000, settle);
    expect(pin().level).toBe(0);
    // The same value again and again: read, not written.
    await rig.run(20000, 1000, settle);
    expect(pin().writes).toBe(3);
    await setControl(cfg.service.url, cfg.service.apiKey, ts.control, 'maybe');
    await rig.run(11000, 1000, settle);
    const s = rig.outputs!.list[0]!;
    expect(pin()).toMatchObject({ level: 0, writes: 3 });
    expect(s.refused).toBeGreaterThanOrEqual(2);
    expect(rig.p.errors.filter((l) => l.includes('refused "maybe"')).length).toBe(1);
    expect(reads.every((r) => r.kind === 'ok')).toBe(true);
    await setControl(cfg.service.url, cfg.service.apiKey, ts.control, '1');
    rig.agent.stop();
  });

  it('never reads while readings wait, and a failing source changes nothing of the outbox order or progress', async () => {
    const sent = { tj: (ts.received['tj'] ?? []).length };
    // A wrong DevicePIN: the service refuses every read.
    const { rig, reads, pin } = rigWith(5000, 1);
    const settle = realSettle(() => rig.agent);
    await rig.run(120000, 1000, settle);
    rig.agent.sampler.stop();
    await rig.run(10000, 1000, settle);
    const s = rig.outputs!.list[0]!;
    expect(s.failures).toBeGreaterThan(10);
    expect(s.safe).toBe(true);
    expect(pin().level).toBe(0);
    expect(reads.every((r) => r.kind === 'reject')).toBe(true);
    // Every read started with nothing queued.
    expect(reads.every((r) => r.depth === 0)).toBe(true);
    // Every reading delivered, in order, as produced.
    expect(rig.queue.stats()).toMatchObject({ depth: 0, dropped: 0, rejected: 0 });
    const got = (ts.received['tj'] ?? []).slice(sent.tj).map((b) => seqIn(b));
    expect(got).toEqual(rig.produced.filter((r) => r.device === 'tj').map((r) => r.seq));
    expect(got.length).toBe(13);
    // The failure is logged once, not once per read.
    expect(rig.p.errors.filter((l) => l.startsWith('output relay: source not read')).length).toBe(1);
    rig.agent.stop();
  });
});
