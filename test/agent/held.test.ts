// A refusal the operator can fix (401, 403, 404, 409, a 2xx saying the same)
// holds the device: its readings wait, in order, while the other devices go
// on; nothing is dropped but by the outbox's bound.
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/agent';
import { HOLD_CAP_MS } from '../../src/agent/uplink';
import type { WriteOutcome } from '../../src/agent/uplink';
import type { LoadCold } from '../../src/agent/outputs';
import type { AgentConfig } from '../../src/config/types';
import { createMemoryOutbox } from '../../src/queue/memory';
import { createOutbox } from '../../src/queue/outbox';
import type { Outbox } from '../../src/queue/types';
import { testConfig } from '../fakes/config';
import { createTestPlatform } from '../fakes/platform';
import type { TestPlatform } from '../fakes/platform';
import { createFakeTime } from '../fakes/time';
import type { FakeTime } from '../fakes/time';
import { createFakeWriter } from '../fakes/writer';
import { loadOutputsCode } from '../fakes/outputs-code';
import type { Write } from '../fakes/writer';

const seqOf = (body: string): number => Number(/seq"?[=:]"?(\d+)/.exec(body)?.[1] ?? -1);
const OK: WriteOutcome = { kind: 'ok', status: 200, bytesSent: 1 };

type Answer = (w: Write, n: number, nowMs: number) => WriteOutcome;

function boot(o: { time: FakeTime; p: TestPlatform; queue: Outbox; answer: Answer; writes: Write[]; bootId?: number; cfg?: AgentConfig; load?: LoadCold; loads?: Record<string, number> }) {
  const fw = createFakeWriter((w, n) => o.answer(w, n, o.time.now()));
  const made = createAgent({ p: o.p, config: o.cfg ?? testConfig(), queue: o.queue, bootId: o.bootId ?? 1, writer: fw.writer, load: o.load ?? loadOutputsCode(o.loads) });
  if (!made.ok) throw new Error(made.error);
  // Every write of every boot, in order.
  const orig = fw.writes.push.bind(fw.writes);
  fw.writes.push = (...w: Write[]) => {
    o.writes.push(...w);
    return orig(...w);
  };
  made.agent.start();
  return { agent: made.agent, ...fw };
}

const outboxes: [string, (p: TestPlatform) => Outbox][] = [
  ['flash outbox', (p) => createOutbox({ files: p.files, dir: 'q', maxBytes: 65536, segmentBytes: 512 })!],
  ['RAM outbox', () => createMemoryOutbox({ maxRecords: 10000 })],
];

/** The JSON device (id 2) of the test configuration is refused with `held` until `untilMs`. */
function refusing(held: WriteOutcome, untilMs: number): Answer {
  return (w, _n, now) => (w.deviceId === 2 && now < untilMs ? held : OK);
}

describe.each(outboxes)('a held device (%s)', (_name, make) => {
  it.each([
    ['401 unknown API key', { kind: 'hold', reason: 'HTTP 401 Unauthorized: text 15 bytes: unknown API key', status: 401, bytesSent: 1 }],
    ['403 forbidden', { kind: 'hold', reason: 'HTTP 403 Forbidden: text 9 bytes: forbidden', status: 403, bytesSent: 1 }],
    ['404 no such device', { kind: 'hold', reason: 'HTTP 404 Not Found: text 14 bytes: no such device', status: 404, bytesSent: 1 }],
    ['409 format', { kind: 'hold', reason: 'HTTP 409 Conflict: text 12 bytes: wrong format', status: 409, bytesSent: 1 }],
    ['2xx saying so', { kind: 'hold', reason: 'HTTP 200 OK: field error is set (json 27 bytes: {"error":"Invalid API key"})', status: 200, bytesSent: 1 }],
  ] as [string, WriteOutcome][])('%s: loses nothing, keeps the order, and the other devices go on', async (_label, held) => {
    const time = createFakeTime();
    const p = createTestPlatform({ time });
    const queue = make(p);
    const writes: Write[] = [];
    const { agent, delivered } = boot({ time, p, queue, writes, answer: refusing(held, 90000) });
    await time.advance(59000);
    // During the hold: the other devices' readings went as they were taken (0 s to 50 s).
    expect(delivered.filter((w) => w.deviceId === 1)).toHaveLength(6);
    expect(delivered.filter((w) => w.deviceId === 3)).toHaveLength(6);
    expect(delivered.filter((w) => w.deviceId === 2)).toHaveLength(0);
    const held1 = agent.uplink.stats().held;
    const want = held as Extract<WriteOutcome, { kind: 'hold' }>;
    expect(held1.map((h) => [h.device, h.status, h.reason])).toEqual([['tj', want.status, want.reason]]);
    expect(queue.stats()).toMatchObject({ depth: 6, dropped: 0, rejected: 0 });
    // Logged once, when the hold began, not once per reading or per try.
    expect(p.errors.filter((l) => l.includes('device tj held'))).toHaveLength(1);
    await time.advance(61000 + HOLD_CAP_MS);
    agent.sampler.stop();
    await time.advance(10000);
    agent.stop();
    const tj = delivered.filter((w) => w.deviceId === 2).map((w) => seqOf(w.body));
    // Every reading of the held device, once, in order.
    const all = (queue.stats().nextSeq - 1) / 3;
    expect(all).toBeGreaterThan(35);
    expect(tj).toEqual(Array.from({ length: all }, (_, i) => 2 + 3 * i));
    expect(agent.uplink.stats().held).toEqual([]);
    expect(queue.stats()).toMatchObject({ depth: 0, dropped: 0, rejected: 0 });
    expect(p.lines.filter((l) => l.includes('device tj delivers again'))).toHaveLength(1);
  });

  it('rejects a record the service refuses as bad (400, 413) and moves on', async () => {
    const time = createFakeTime();
    const p = createTestPlatform({ time });
    const queue = make(p);
    const writes: Write[] = [];
    const { agent, delivered } = boot({
      time, p, queue, writes,
      answer: (w) => (w.deviceId === 2 ? { kind: 'reject', reason: 'HTTP 413 Payload Too Large', bytesSent: 1 } : OK),
    });
    await time.advance(25000);
    agent.stop();
    expect(delivered.map((w) => w.deviceId)).toEqual([1, 3, 1, 3, 1, 3]);
    expect(queue.stats()).toMatchObject({ depth: 0, rejected: 3 });
    expect(agent.uplink.stats().held).toEqual([]);
  });

  it('tries a held device again with the backoff, up to the slow steady retry', async () => {
    const time = createFakeTime();
    const p = createTestPlatform({ time });
    const queue = make(p);
    const writes: Write[] = [];
    const at: number[] = [];
    const { agent, delivered } = boot({
      time, p, queue, writes,
      answer: (w, _n, now) => {
        if (w.deviceId !== 2) return OK;
        at.push(now);
        return { kind: 'hold', reason: 'HTTP 401 Unauthorized', status: 401, bytesSent: 1 };
      },
    });
    await time.advance(60 * 60000);
    agent.sampler.stop();
    await time.advance(1000);
    agent.stop();
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    // Far fewer tries than readings (360), growing, never beyond the cap (plus the sampling step).
    expect(at.length).toBeLessThan(40);
    expect(at.length).toBeGreaterThan(10);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(HOLD_CAP_MS + 10000);
    expect(gaps.slice(-5).every((g) => g >= HOLD_CAP_MS / 2)).toBe(true);
    // Still everything kept.
    expect(queue.stats()).toMatchObject({ depth: delivered.filter((w) => w.deviceId === 1).length, dropped: 0, rejected: 0 });
    expect(queue.stats().depth).toBeGreaterThan(300);
  });

  it('when every device is held, waits without moving records and delivers all once the key is fixed', async () => {
    const time = createFakeTime();
    const p = createTestPlatform({ time });
    const queue = make(p);
    const writes: Write[] = [];
    let fixed = false;
    const { agent, delivered } = boot({
      time, p, queue, writes,
      answer: () => (fixed ? OK : { kind: 'hold', reason: 'HTTP 401 Unauthorized: unknown API key', status: 401, bytesSent: 1 }),
    });
    await time.advance(30 * 60000);
    expect(agent.uplink.stats().held.map((h) => h.device).sort()).toEqual(['tj', 'tv', 'tx']);
    // Few tries: each device's backoff, not one per reading.
    expect(writes.length).toBeLessThan(60);
    fixed = true;
    await time.advance(HOLD_CAP_MS + 60000);
    agent.sampler.stop();
    await time.advance(10000);
    agent.stop();
    expect(queue.stats()).toMatchObject({ depth: 0, dropped: 0, rejected: 0 });
    const groups = (queue.stats().nextSeq - 1) / 3;
    for (const id of [2, 3]) {
      const seqs = delivered.filter((w) => w.deviceId === id).map((w) => seqOf(w.body));
      expect(seqs).toEqual(Array.from({ length: groups }, (_, i) => id + 3 * i));
    }
    expect(delivered.filter((w) => w.deviceId === 1)).toHaveLength(groups);
  });
});

describe('a held device on the flash outbox', () => {
  it('keeps its readings set aside across a restart, and delivers them first and in order', async () => {
    const time = createFakeTime();
    const p = createTestPlatform({ time });
    const writes: Write[] = [];
    const open = () => createOutbox({ files: p.files, dir: 'q', maxBytes: 65536, segmentBytes: 512 })!;
    let refused = true;
    const answer: Answer = (w) => (w.deviceId === 2 && refused ? { kind: 'hold', reason: 'HTTP 404 Not Found', status: 404, bytesSent: 1 } : OK);
    const first = boot({ time, p, queue: open(), writes, answer });
    await time.advance(119000);
    first.agent.stop();
    const q2 = open();
    // The held device's readings are in its lane, found again at boot, and the lanes' code is loaded at the start.
    expect(q2.found).toEqual(['tj']);
    refused = false;
    const loads: Record<string, number> = {};
    const second = boot({ time, p, queue: q2, writes, answer, bootId: 2, loads });
    await time.advance(1);
    expect(loads['held']).toBe(1);
    await time.advance(29000);
    second.agent.sampler.stop();
    await time.advance(5000);
    second.agent.stop();
    const delivered = [...first.delivered, ...second.delivered].filter((w) => w.deviceId === 2).map((w) => seqOf(w.body));
    expect(delivered).toEqual(Array.from({ length: (q2.stats().nextSeq - 1) / 3 }, (_, i) => 2 + 3 * i));
    expect(delivered.length).toBe(15);
    expect(q2.stats()).toMatchObject({ depth: 0, dropped: 0 });
    // Drained: the next boot finds no lane, so it does not load the lanes' code.
    expect(open().found).toEqual([]);
  });

  it('drops the oldest readings, counted, when the bound is reached while held', async () => {
    const time = createFakeTime();
    const p = createTestPlatform({ time });
    const queue = createOutbox({ files: p.files, dir: 'q', maxBytes: 2048, segmentBytes: 512 })!;
    const writes: Write[] = [];
    let refused = true;
    const { agent, delivered } = boot({
      time, p, queue, writes,
      answer: (w) => (w.deviceId === 2 && refused ? { kind: 'hold', reason: 'HTTP 401 Unauthorized', status: 401, bytesSent: 1 } : OK),
    });
    await time.advance(40 * 60000 - 1000);
    const s = queue.stats();
    expect(s.bytes).toBeLessThanOrEqual(2048);
    expect(s.dropped).toBeGreaterThan(100);
    // Every reading of the held device is either still queued or counted as dropped.
    expect(s.dropped + s.depth).toBe((s.nextSeq - 1) / 3);
    refused = false;
    await time.advance(HOLD_CAP_MS + 30000);
    agent.sampler.stop();
    await time.advance(10000);
    agent.stop();
    const groups = (queue.stats().nextSeq - 1) / 3;
    const tj = delivered.filter((w) => w.deviceId === 2).map((w) => seqOf(w.body));
    // What reached the service is the newest of them, in order, none twice; the rest were counted as dropped.
    expect(tj).toEqual([...tj].sort((a, b) => a - b));
    expect(new Set(tj).size).toBe(tj.length);
    expect(tj[tj.length - 1]).toBe(2 + 3 * (groups - 1));
    expect(queue.stats().dropped + tj.length).toBe(groups);
    expect(queue.stats().depth).toBe(0);
    // The other devices lost nothing.
    expect(delivered.filter((w) => w.deviceId === 1)).toHaveLength(groups);
  });
});

describe('the held devices\' code (cold module \'held\')', () => {
  it('is not loaded while the service takes every write', async () => {
    const time = createFakeTime();
    const p = createTestPlatform({ time });
    const loads: Record<string, number> = {};
    const { agent, delivered } = boot({ time, p, queue: createMemoryOutbox({ maxRecords: 1000 }), writes: [], answer: () => OK, loads });
    await time.advance(60000);
    agent.stop();
    expect(delivered.length).toBeGreaterThan(15);
    expect(loads).toEqual({});
  });

  it('when it cannot be loaded: a held device holds the others up, nothing is lost, and it is said once', async () => {
    const time = createFakeTime();
    const p = createTestPlatform({ time });
    const queue = createMemoryOutbox({ maxRecords: 1000 });
    let refused = true;
    const load: LoadCold = () => ({ ok: false, error: "cold code held: heap short (12000 B free)" });
    const { agent, delivered } = boot({
      time, p, queue, writes: [], load,
      answer: (w) => (w.deviceId === 2 && refused ? { kind: 'hold', reason: 'HTTP 401 Unauthorized', status: 401, bytesSent: 1 } : OK),
    });
    await time.advance(59000);
    expect(p.errors.filter((l) => l.includes('cold code held'))).toHaveLength(1);
    refused = false;
    await time.advance(HOLD_CAP_MS + 30000);
    agent.sampler.stop();
    await time.advance(10000);
    agent.stop();
    const groups = (queue.stats().nextSeq - 1) / 3;
    for (const id of [2, 3]) expect(delivered.filter((w) => w.deviceId === id).map((w) => seqOf(w.body))).toEqual(Array.from({ length: groups }, (_, i) => id + 3 * i));
    expect(delivered.filter((w) => w.deviceId === 1)).toHaveLength(groups);
    expect(queue.stats()).toMatchObject({ depth: 0, dropped: 0, rejected: 0 });
  });
});
