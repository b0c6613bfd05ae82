import { describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/agent';
import type { Agent } from '../../src/agent/agent';
import type { Delivery } from '../../src/agent/uplink';
import { createMemoryOutbox } from '../../src/queue/memory';
import { createOutbox } from '../../src/queue/outbox';
import type { AgentConfig } from '../../src/config/types';
import { testConfig } from '../fakes/config';
import { createTestPlatform } from '../fakes/platform';
import type { TestPlatform } from '../fakes/platform';
import { createFakeTime } from '../fakes/time';
import type { FakeTime } from '../fakes/time';
import { createFakeWriter } from '../fakes/writer';
import type { WriteOutcome } from '../../src/agent/uplink';

function setup(cfg: AgentConfig = testConfig(), answer?: Parameters<typeof createFakeWriter>[0]) {
  const time = createFakeTime();
  const p = createTestPlatform({ time });
  const queue = createMemoryOutbox({ maxRecords: 10000 });
  const fw = createFakeWriter(answer);
  const made = createAgent({ p, config: cfg, queue, bootId: 1, writer: fw.writer });
  if (!made.ok) throw new Error(made.error);
  return { time, p, queue, agent: made.agent, ...fw };
}

const seqOf = (body: string): number => Number(/seq"?[=:]"?(\d+)/.exec(body)?.[1] ?? -1);

describe('agent data path', () => {
  it('writes each device in its own format, one write per sample group, in order', async () => {
    const { time, agent, writes } = setup();
    agent.start();
    await time.advance(25000);
    agent.stop();
    // Samples at 0, 10 s and 20 s: per group one value, one JSON and one XML write.
    expect(writes.map((w) => `${w.op}:${w.deviceId}`)).toEqual([
      'value:1', 'json:2', 'xml:3', 'value:1', 'json:2', 'xml:3', 'value:1', 'json:2', 'xml:3',
    ]);
    expect(writes[0]!.body).toMatch(/^-?\d+\.\d\d$/);
    expect(writes[1]!.body).toMatch(/^\{"temp":-?\d+\.\d\d,"light":\d+\.\d\d,"door":[01],"seq":2,"uptime_ms":0\}$/);
    expect(writes[2]!.body).toMatch(/^<reading seq="3" uptime_ms="0"><light unit="V">\d+\.\d\d<\/light><door>[01]<\/door><\/reading>$/);
    const seqs = writes.filter((w) => w.op !== 'value').map((w) => seqOf(w.body));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    // Its own encodings: the client is told not to parse them again to check them.
    expect(writes.filter((w) => w.op !== 'value').every((w) => w.made === true)).toBe(true);
  });

  it('keeps readings through a server outage and delivers them in order afterwards', async () => {
    let failing = true;
    const { time, agent, delivered, writes, queue } = setup(testConfig(), () =>
      failing ? { kind: 'retry', reason: 'HTTP 503', bytesSent: 50 } : { kind: 'ok', status: 200, bytesSent: 50 },
    );
    agent.start();
    await time.advance(120100);
    expect(delivered).toEqual([]);
    // 13 sample groups (0 s to 120 s), three devices each.
    expect(queue.stats().depth).toBe(39);
    failing = false;
    await time.advance(400000);
    agent.stop();
    expect(queue.stats().depth).toBe(0);
    const jsonSeqs = delivered.filter((w) => w.op === 'json').map((w) => seqOf(w.body));
    expect(jsonSeqs.length).toBeGreaterThan(12);
    expect(jsonSeqs).toEqual([...jsonSeqs].sort((a, b) => a - b));
    expect(new Set(jsonSeqs).size).toBe(jsonSeqs.length);
    // Backoff: far fewer attempts than one per second during the 2-minute outage.
    expect(writes.length - delivered.length).toBeLessThan(30);
  });

  it('sets a rejected record aside and goes on with the next', async () => {
    const { time, agent, delivered, queue } = setup(testConfig(), (w): WriteOutcome =>
      w.op === 'xml' ? { kind: 'reject', reason: 'HTTP 409: format', bytesSent: 1 } : { kind: 'ok', status: 200, bytesSent: 1 },
    );
    agent.start();
    await time.advance(15000);
    agent.stop();
    expect(delivered.map((w) => w.op)).toEqual(['value', 'json', 'value', 'json']);
    expect(queue.stats().rejected).toBe(2);
    expect(queue.stats().lastReject).toBe('HTTP 409: format');
  });

  it('batches queued JSON records of one device into one array write when batching is on', async () => {
    const cfg = testConfig();
    cfg.devices = [{ ...cfg.devices[1]!, batch: 5 }];
    let failing = true;
    const { time, agent, delivered } = setup(cfg, () =>
      failing ? { kind: 'retry', reason: 'down', bytesSent: 0 } : { kind: 'ok', status: 200, bytesSent: 0 },
    );
    agent.start();
    await time.advance(65000);
    failing = false;
    await time.advance(300000);
    agent.stop();
    const first = JSON.parse(delivered[0]!.body) as { seq: number }[];
    expect(first.map((o) => o.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('reads only the head record for a device that does not batch, even beside one that batches 20 (each record read is decoded onto the heap)', async () => {
    const cfg = testConfig();
    cfg.devices = cfg.devices.map((d) => (d.format === 'JSON' ? { ...d, batch: 20 } : d));
    const time = createFakeTime();
    const p = createTestPlatform({ time });
    const queue = createMemoryOutbox({ maxRecords: 10000 });
    const asked: number[] = [];
    const peek = queue.peek.bind(queue);
    queue.peek = (n: number) => {
      asked.push(n);
      return peek(n);
    };
    const fw = createFakeWriter();
    const made = createAgent({ p, config: cfg, queue, bootId: 1, writer: fw.writer });
    if (!made.ok) throw new Error(made.error);
    made.agent.start();
    await time.advance(65000);
    made.agent.stop();
    const single = fw.delivered.filter((d) => !d.body.startsWith('[') && !d.body.startsWith('{')).length;
    expect(single).toBeGreaterThan(0);
    // Reads of more than one record: at most one per JSON write.
    const json = fw.delivered.filter((d) => d.body.startsWith('[') || d.body.startsWith('{')).length;
    expect(asked.filter((n) => n > 1).length).toBeLessThanOrEqual(json);
    expect(asked.filter((n) => n > 20)).toEqual([]);
  });

  /** A JSON device with batch 5 through a 65 s outage, then 5 min of 200s: what onDelivered saw and what the writer got. */
  async function deliveries(keepBody?: boolean) {
    const cfg = testConfig();
    cfg.devices = [{ ...cfg.devices[1]!, batch: 5 }];
    const time = createFakeTime();
    const p = createTestPlatform({ time });
    const queue = createMemoryOutbox({ maxRecords: 10000 });
    let failing = true;
    const fw = createFakeWriter(() => (failing ? { kind: 'retry', reason: 'down', bytesSent: 0 } : { kind: 'ok', status: 200, bytesSent: 0 }));
    const got: Delivery[] = [];
    const made = createAgent({ p, config: cfg, queue, bootId: 1, writer: fw.writer, keepBody, onDelivered: (d) => got.push(d) });
    if (!made.ok) throw new Error(made.error);
    made.agent.start();
    await time.advance(65000);
    failing = false;
    await time.advance(300000);
    made.agent.stop();
    return { got, sent: fw.delivered, device: cfg.devices[0]!.name };
  }

  it('reports each delivery with the count of records, the last seq and the body as sent (the records themselves are let go before the write)', async () => {
    const { got, sent, device } = await deliveries(true);
    expect(got[0]).toEqual({ device, count: 5, lastSeq: 5, body: sent[0]!.body, status: 200 });
    expect((JSON.parse(got[0]!.body!) as { seq: number }[]).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    const single = got.find((d) => d.count === 1);
    expect(single).toBeDefined();
    expect(seqOf(single!.body!)).toBe(single!.lastSeq);
  });

  it('lets a body go once written unless asked to keep it: a delivery then carries no body, and the batch still went out whole', async () => {
    const { got, sent } = await deliveries();
    expect(got.length).toBeGreaterThan(1);
    expect(got.every((d) => d.body === undefined)).toBe(true);
    expect(got[0]!.count).toBe(5);
    expect((JSON.parse(sent[0]!.body) as { seq: number }[]).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('stamps readings taken before the clock was known once the Date header arrives', async () => {
    const { time, agent, writes } = setup(testConfig(), (_w, n) => ({
      kind: 'ok', status: 200, bytesSent: 0, date: n === 1 ? 'Sun, 22 Nov 2026 08:05:00 GMT' : undefined,
    }));
    agent.start();
    await time.advance(1000);
    agent.stop();
    expect(writes[1]!.body).toContain('"ts":"2026-11-22T08:05:00.');
    expect(writes[2]!.body).toContain(' ts="2026-11-22T08:05:00.');
  });

  it('survives a restart on the flash outbox without losing or repeating a record', async () => {
    const time: FakeTime = createFakeTime();
    const p: TestPlatform = createTestPlatform({ time });
    let up = false;
    const fw = createFakeWriter(() => (up ? { kind: 'ok', status: 200, bytesSent: 0 } : { kind: 'retry', reason: 'down', bytesSent: 0 }));
    const boot = (bootId: number): Agent => {
      const queue = createOutbox({ files: p.files, dir: 'q', maxBytes: 65536 })!;
      const made = createAgent({ p, config: testConfig(), queue, bootId, writer: fw.writer });
      if (!made.ok) throw new Error(made.error);
      made.agent.start();
      return made.agent;
    };
    const a1 = boot(1);
    await time.advance(30000);
    a1.stop();
    up = true;
    const a2 = boot(2);
    await time.advance(5000);
    a2.stop();
    const json = fw.delivered.filter((w) => w.op === 'json').map((w) => seqOf(w.body));
    expect(json).toEqual([2, 5, 8, 11, 14]);
  });
});

describe('radio duty cycling', () => {
  const run = async (intervalMs: number, radioOff: boolean) => {
    const cfg = testConfig();
    cfg.agent.radioOffBetweenUploads = radioOff;
    for (const s of cfg.sensors) s.intervalMs = intervalMs;
    const { time, agent, p, delivered } = setup(cfg);
    agent.start();
    await time.advance(intervalMs * 3 + 5000);
    agent.stop();
    return { counts: p.wifi.counts, delivered: delivered.length };
  };

  it('switches the radio off after each drained queue and on again before the next upload', async () => {
    const r = await run(300000, true);
    // 4 sample groups (0, 5, 10, 15 min), each drained then followed by a disconnect.
    expect(r.delivered).toBe(12);
    expect(r.counts.disconnects).toBe(4);
    // The link starts up: the first group needs no join, the next three do.
    expect(r.counts.connects).toBe(3);
  });

  it('keeps the radio on when the option is off or samples are too close together', async () => {
    // The simulated link starts up, so a radio that stays on never joins again.
    expect((await run(300000, false)).counts).toMatchObject({ disconnects: 0, connects: 0 });
    expect((await run(60000, true)).counts).toMatchObject({ disconnects: 0, connects: 0 });
  });
});

describe('memory floor', () => {
  it('starts no request while free heap is below the floor, and goes on once it is back', async () => {
    const cfg = testConfig();
    cfg.agent.heapFloorBytes = 16384;
    const { time, agent, p, writes } = setup(cfg);
    p.heapUsed = 184312 - 10000;
    agent.start();
    await time.advance(30000);
    expect(writes).toEqual([]);
    expect(agent.uplink.stats().lastError).toBe('free heap 10000 B is below the floor of 16384 B; request postponed');
    expect(agent.queue.stats().depth).toBe(10);
    p.heapUsed = 60000;
    await time.advance(60000);
    agent.stop();
    expect(writes.length).toBe(28);
    // The JSON and XML records of the last group were flushed by stop() and wait for the next start.
    expect(agent.queue.stats().depth).toBe(2);
  });
});

describe('memory floor without a probe', () => {
  it('reads the live set as the lowest heapUsed seen, so garbage not yet collected postpones nothing', async () => {
    const cfg = testConfig();
    cfg.agent.heapFloorBytes = 16384;
    const { time, agent, p, writes } = setup(cfg);
    // Live set 165,000 B: 19.3 KB free after a collection; garbage saw-tooths up to 6 KB above
    // it, where free heap reads down to 13.3 KB, below the floor in 3 readings of 5.
    let n = 0;
    p.system.memory = () => {
      p.heapUsed = 165000 + ((n++ * 1500) % 7500);
      return { heapTotal: 184312, heapUsed: p.heapUsed, heapPeak: p.heapUsed };
    };
    agent.start();
    await time.advance(90000);
    agent.stop();
    expect(agent.uplink.stats().lastError).toBeUndefined();
    expect(writes.length).toBeGreaterThan(20);
  });

  it('follows a live set that grew, within two minutes', async () => {
    const cfg = testConfig();
    cfg.agent.heapFloorBytes = 16384;
    const { time, agent, p, writes } = setup(cfg);
    p.heapUsed = 100000;
    agent.start();
    await time.advance(20000);
    const before = writes.length;
    p.heapUsed = 184312 - 8000;
    await time.advance(150000);
    expect(agent.uplink.stats().lastError).toBe('free heap 8000 B is below the floor of 16384 B; request postponed');
    agent.stop();
    expect(before).toBeGreaterThan(0);
  });
});

describe('flash write failures', () => {
  it('holds records in RAM while the outbox cannot store them and stores them in order once it can', async () => {
    const time = createFakeTime();
    const p = createTestPlatform({ time });
    const inner = createMemoryOutbox({ maxRecords: 1000 });
    let broken = true;
    const queue = { ...inner, push: (r: Parameters<typeof inner.push>[0]) => (broken ? false : inner.push(r)) };
    let up = false;
    const fw = createFakeWriter(() => (up ? { kind: 'ok', status: 200, bytesSent: 0 } : { kind: 'retry', reason: 'down', bytesSent: 0 }));
    const made = createAgent({ p, config: testConfig(), queue, bootId: 1, writer: fw.writer });
    if (!made.ok) throw new Error(made.error);
    made.agent.start();
    await time.advance(25000);
    expect(inner.stats().depth).toBe(0);
    expect(p.errors.at(-1)).toBe('outbox: could not store reading 9; 9 held in RAM');
    broken = false;
    up = true;
    await time.advance(60000);
    made.agent.stop();
    const json = fw.delivered.filter((w) => w.op === 'json').map((w) => seqOf(w.body));
    expect(json).toEqual([2, 5, 8, 11, 14, 17, 20, 23, 26]);
  });
});

describe('reports outside the outbox (the agent health)', () => {
  const HEALTH = { apiKey: 'k3y0123456789abcdef0123456789abcd', deviceId: 99, devicePin: 9 };

  it('go as a JSON write of their own, once, and never onto the outbox', async () => {
    const { time, agent, writes, queue } = setup();
    agent.start();
    agent.uplink.report(HEALTH, '{"n":1}');
    await time.advance(1000);
    expect(writes.filter((w) => w.deviceId === 99)).toEqual([{ op: 'json', deviceId: 99, body: '{"n":1}', made: true }]);
    expect(writes.filter((w) => w.deviceId !== 99)).toHaveLength(3);
    expect(queue.stats().depth).toBe(0);
    expect(agent.uplink.stats().reports).toBe(1);
    agent.stop();
  });

  it('while the service fails: only the latest waits, in RAM, and the readings keep their order on the outbox', async () => {
    let failing = true;
    const { time, agent, writes, queue, delivered } = setup(testConfig(), () =>
      failing ? { kind: 'retry', reason: 'HTTP 503', bytesSent: 10 } : { kind: 'ok', status: 200, bytesSent: 10 },
    );
    agent.start();
    agent.uplink.report(HEALTH, '{"n":1}');
    await time.advance(30000);
    agent.uplink.report(HEALTH, '{"n":2}');
    await time.advance(30500);
    // The outbox holds the readings only (7 sample groups); the report waits in RAM.
    expect(queue.stats().depth).toBe(21);
    // Tried once at the start, when nothing was queued; not again while readings wait.
    expect(writes.filter((w) => w.deviceId === 99)).toHaveLength(1);
    failing = false;
    await time.advance(400000);
    agent.stop();
    expect(queue.stats().depth).toBe(0);
    const reports = delivered.filter((w) => w.deviceId === 99).map((w) => w.body);
    expect(reports).toEqual(['{"n":2}']);
    // Every reading before the report that followed them.
    expect(delivered.findIndex((w) => w.deviceId === 99)).toBeGreaterThanOrEqual(21);
  });

  it('a refused report is dropped, not retried, and the readings go on', async () => {
    const { time, agent, writes } = setup(testConfig(), (w) =>
      w.deviceId === 99 ? { kind: 'reject', reason: 'HTTP 404', bytesSent: 10 } : { kind: 'ok', status: 200, bytesSent: 10 },
    );
    agent.start();
    agent.uplink.report(HEALTH, '{"n":1}');
    await time.advance(25000);
    agent.stop();
    expect(writes.filter((w) => w.deviceId === 99)).toHaveLength(1);
    expect(writes.filter((w) => w.deviceId !== 99)).toHaveLength(9);
    expect(agent.uplink.stats().reports).toBe(0);
  });
});
