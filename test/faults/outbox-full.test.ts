// Case 5: the outbox fills up during a long outage. The promise: a record is
// either delivered in order or counted as dropped, and only the oldest are
// dropped. Flash outbox over an in-memory store, 4 KB bound, fake clock.
import { describe, expect, it, vi } from 'vitest';
import type { WriteOutcome } from '../../src/agent/uplink';
import { createSimWifi } from '../../host/ports/wifi';
import { testConfig } from '../fakes/config';
import { createMemoryFileStore } from '../fakes/files';
import { Rig, scriptedWriter, seeded, seqs } from './harness';
import type { Stored } from './harness';

const OK: WriteOutcome = { kind: 'ok', status: 200, bytesSent: 1 };
const DOWN: WriteOutcome = { kind: 'retry', reason: 'HTTP 503', bytesSent: 1 };

function setup(intervalMs: number, latencyMs: number) {
  vi.spyOn(Math, 'random').mockImplementation(seeded(6));
  const cfg = testConfig();
  for (const s of cfg.sensors) s.intervalMs = intervalMs;
  const stored: Stored[] = [];
  let down = true;
  const files = createMemoryFileStore();
  const droppedSeqs: number[] = [];
  const rig = new Rig({
    config: cfg, files, dropped: droppedSeqs, wifi: createSimWifi({ ssid: 'field-net', up: true }), maxBytes: 4096, segmentBytes: 512,
    writer: scriptedWriter({ config: cfg, stored, answer: () => (down ? DOWN : OK), latencyMs }),
  });
  rig.boot();
  return { rig, stored, files, droppedSeqs, up: () => void (down = false) };
}

describe('a full outbox', () => {
  it('drops exactly the oldest during a long outage, counts each, and delivers the newest in order', async () => {
    const { rig, stored, files, droppedSeqs, up } = setup(10000, 0);
    let maxBytes = 0;
    const watch = () => {
      maxBytes = Math.max(maxBytes, rig.queue.stats().bytes);
    };
    await rig.run(3 * 3600000, 10000, undefined, watch);
    const atEnd = rig.queue.stats();
    const onFlash = files.paths().reduce((n, p) => n + (files.size(p) ?? 0), 0);
    up();
    await rig.run(60000);
    rig.agent.sampler.stop();
    await rig.run(600000);

    const produced = seqs(rig.produced);
    const delivered = stored.map((s) => s.seq);
    const st = rig.queue.stats();
    console.log(
      `[outbox-full] produced ${produced.length}, delivered ${delivered.length}, dropped ${st.dropped}, ` +
        `at the end of the outage: depth ${atEnd.depth}, ${atEnd.bytes} B queued (max ${maxBytes} B), ${onFlash} B on flash`,
    );
    expect(atEnd.dropped).toBeGreaterThan(0);
    expect(maxBytes).toBeLessThanOrEqual(4096);
    expect(onFlash).toBeLessThanOrEqual(4096 + 512 + 64);
    expect(st.depth).toBe(0);
    expect(st.dropped).toBe(produced.length - delivered.length - st.depth);
    // Nothing was delivered before the outage ended, so the dropped ones are the first produced.
    expect(delivered).toEqual(produced.slice(st.dropped));
    expect(droppedSeqs).toEqual(produced.slice(0, st.dropped));
  });

  // The outbox drops its oldest record to make room while the uplink has that
  // very record in flight. The uplink must then acknowledge only the sent
  // records still queued (never the next, unsent one) and tell the outbox the
  // in-flight ones arrived after all (undrop), so the drop count stays exact.
  it('stays exact when the record in flight is dropped to make room (slow service, full outbox)', async () => {
    const { rig, stored, droppedSeqs, up } = setup(1000, 3000);
    await rig.run(15 * 60000);
    expect(rig.queue.stats().dropped).toBeGreaterThan(0);
    // The service comes back but takes 3 s per write: the outbox stays full
    // while readings arrive every second.
    up();
    await rig.run(10 * 60000);
    rig.agent.sampler.stop();
    await rig.run(30 * 60000);

    const produced = seqs(rig.produced);
    const delivered = stored.map((s) => s.seq);
    const st = rig.queue.stats();
    const sent = new Set(delivered);
    const counted = new Set(droppedSeqs);
    const both = droppedSeqs.filter((q) => sent.has(q));
    const neither = produced.filter((q) => !sent.has(q) && !counted.has(q));
    console.log(
      `[outbox-full] slow service: produced ${produced.length}, delivered ${delivered.length}, counted dropped ${st.dropped}; ` +
        `dropped while in flight, then delivered ${both.length} (undropped ${rig.undropped}); neither delivered nor dropped ${neither.length}` +
        (neither.length ? ' (first: seq ' + neither.slice(0, 5).join(', ') + ')' : ''),
    );
    expect(st.depth).toBe(0);
    expect(delivered).not.toContain(-1);
    // Delivered in order, and what is not delivered is exactly what was counted.
    expect(delivered).toEqual([...delivered].sort((a, b) => a - b));
    // Each record is delivered or dropped, never neither; the ones dropped
    // while in flight were delivered and taken off the drop count again.
    expect(neither).toEqual([]);
    expect(both.length).toBeGreaterThan(0);
    expect(rig.undropped).toBe(both.length);
    expect(st.dropped).toBe(droppedSeqs.length - both.length);
    expect(st.dropped).toBe(produced.length - delivered.length);
  });
});
