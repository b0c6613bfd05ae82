// Case 3: resets mid-reply, servers that accept and never answer, replies
// that stall half way, garbage, refused ports and Kaluma's silent sockets
// (no event at all), then a server that behaves. Nothing hangs: every
// attempt ends by the request deadline on the fake clock, and every reading
// arrives in order. The one fault that loses a reply the service already
// stored (commit-then-reset) costs exactly one repeat of that record.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNodeSockets } from '../../host/ports/sockets';
import { createSimWifi } from '../../host/ports/wifi';
import { createMemoryFileStore } from '../fakes/files';
import { startFront } from './front';
import type { Fault, Front } from './front';
import { byDevice, realSettle, recordingWriter, Rig, seeded, unstamp } from './harness';
import type { Attempt } from './harness';
import { startTestService } from './service';
import type { TestService } from './service';

const SCRIPT: Fault[] = [
  'reset-mid-reply', 'hang', 'refuse', 'silent', 'close-unanswered', 'stall-mid-body', 'garbage',
  'commit-then-reset', 'refuse', 'hang', 'silent', 'reset-mid-reply', 'stall-mid-body', 'silent',
];

let ts: TestService;
let front: Front;

beforeAll(async () => {
  ts = await startTestService();
  front = await startFront({ upstreamPort: ts.svc.port, script: SCRIPT, real: createNodeSockets() });
  ts.config.service.url = 'http://127.0.0.1:' + front.port;
});

afterAll(async () => {
  vi.restoreAllMocks();
  await front.close();
  await ts.close();
});

describe('connection faults', () => {
  it('end by the deadline, never hang, and leave every reading delivered in order once the server behaves', async () => {
    vi.spyOn(Math, 'random').mockImplementation(seeded(4));
    const cfg = ts.config;
    const attempts: Attempt[] = [];
    const rig = new Rig({
      config: cfg, files: createMemoryFileStore(), wifi: createSimWifi({ ssid: 'field-net', up: true }),
      sockets: front.sockets, writer: recordingWriter(cfg, attempts),
    });
    rig.boot();
    const settle = realSettle(() => rig.agent, () => front.stuck());
    await rig.run(10 * 60000, 1000, settle);
    rig.agent.sampler.stop();
    // Fourteen failures in a row push the backoff to its 5-minute cap.
    await rig.run(40 * 60000, 1000, settle);

    expect(front.applied.slice(0, SCRIPT.length)).toEqual(SCRIPT);
    expect(front.stuck()).toBe(false);
    expect(rig.agent.uplink.stats().inFlightSinceMs).toBeUndefined();
    // Attempt i met fault i: each failed, each ended by its deadline.
    const limit = cfg.agent.requestTimeoutMs;
    SCRIPT.forEach((f, i) => {
      const a = attempts[i]!;
      expect(a.outcome.kind, `attempt ${i} (${f})`).toBe('retry');
      expect(a.doneMs - a.atMs, `attempt ${i} (${f}) took`).toBeLessThanOrEqual(limit);
    });
    const took = (f: Fault): number[] => SCRIPT.flatMap((g, i) => (g === f ? [attempts[i]!.doneMs - attempts[i]!.atMs] : []));
    // Held attempts end exactly at their deadline: the whole exchange, or the handshake.
    expect(took('hang')).toEqual([limit, limit]);
    expect(took('stall-mid-body')).toEqual([limit, limit]);
    expect(took('silent')).toEqual([5000, 5000, 5000]);
    expect(attempts.slice(SCRIPT.length).every((a) => a.outcome.kind === 'ok')).toBe(true);
    console.log(
      '[connection-faults] ' + SCRIPT.map((f, i) => f + ': ' + (attempts[i]!.outcome.kind === 'retry' ? (attempts[i]!.outcome as { reason: string }).reason : '?')).join('; '),
    );

    // Exactly the produced records per device; the record whose reply was lost
    // after the service stored it appears twice, back to back.
    const lost = attempts[SCRIPT.indexOf('commit-then-reset')]!;
    const lostDevice = cfg.devices.find((d) => d.deviceId === lost.device)!.name;
    const expected = byDevice(rig.produced);
    const list = expected[lostDevice]!;
    const at = list.indexOf(unstamp(lost.body));
    expect(at).toBeGreaterThanOrEqual(0);
    list.splice(at, 0, list[at]!);
    for (const d of cfg.devices) expect(ts.received[d.name], d.name).toEqual(expected[d.name]);
    expect(rig.queue.stats()).toMatchObject({ depth: 0, dropped: 0, rejected: 0 });
    expect(rig.produced.length).toBe(61 * 3);
  });
});
