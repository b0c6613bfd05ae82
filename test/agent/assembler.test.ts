// The assembler's RAM spill against an outbox that refuses records (flash
// full or worn): records stay in order and counted, and the refusing file
// system is tried again with a backoff, not on every sample. And, with the
// sampler in front of it: one record per period per device, whatever the
// loop's jitter.
import { describe, expect, it, vi } from 'vitest';
import { createAssembler } from '../../src/agent/assembler';
import { createSampler } from '../../src/agent/sampler';
import { createTimeKeeper } from '../../src/agent/time';
import { createChain } from '../../src/filters/index';
import type { DeviceConfig, Reading } from '../../src/model';
import type { Sensor } from '../../src/sensors/index';
import { createMemoryOutbox } from '../../src/queue/memory';
import type * as Encode from '../../src/service/encode';
import type { OutboxRecord } from '../../src/queue/types';
import { createFakeTime } from '../fakes/time';

// The readings the assembler keeps are only seen by the encoder: this one
// encodes as the real one does and keeps what it was handed.
const handed = vi.hoisted(() => [] as Reading[][]);
vi.mock('../../src/service/encode', async (importOriginal) => {
  const real = await importOriginal<typeof Encode>();
  return {
    ...real,
    encodeFor: (...a: Parameters<typeof real.encodeFor>) => {
      handed.push(a[1]);
      return real.encodeFor(...a);
    },
  };
});

const DEVICE: DeviceConfig = { name: 'tv', deviceId: 1, devicePin: 1111, format: 'Value', sensors: ['temp'], decimals: 2 };
const PERIOD_MS = 1000;

function setup() {
  const time = createFakeTime();
  const inner = createMemoryOutbox({ maxRecords: 10000 });
  let refusing = true;
  const tries: number[] = [];
  const queue = {
    ...inner,
    push(r: OutboxRecord) {
      tries.push(time.now());
      return refusing ? false : inner.push(r);
    },
  };
  const errors: string[] = [];
  const asm = createAssembler({
    devices: [DEVICE], queue, clock: time.clock, timers: time.timers, time: createTimeKeeper({ clock: time.clock }),
    bootId: 1, log: { info: () => undefined, error: (l) => void errors.push(l) }, retryMs: PERIOD_MS,
  });
  let produced = 0;
  /** One sample per period for `ms`, starting now. */
  const sample = (ms: number): void => {
    for (let t = 0; t < ms; t += PERIOD_MS) {
      asm.onSample({ sensor: 'temp', value: 20 + (produced++ % 10), unit: 'C', atMs: time.now() });
      time.advanceSync(PERIOD_MS);
    }
  };
  return { time, inner, tries, asm, errors, sample, produced: () => produced, accept: (on: boolean) => void (refusing = !on) };
}

describe('the RAM spill while the outbox refuses', () => {
  it('tries flash after one sample period, then twice as long each time, up to 5 minutes', () => {
    const s = setup();
    s.sample(15 * 60000);
    expect(s.tries).toEqual([0, 1000, 3000, 7000, 15000, 31000, 63000, 127000, 255000, 511000, 811000]);
    // Every sample still says it is held in RAM.
    expect(s.errors.length).toBe(900);
    expect(s.errors.at(-1)).toBe('outbox: could not store reading 900; 33 held in RAM');
  });

  it('stores what the spill holds in order once flash accepts, counts the rest, and tries every sample again', () => {
    const s = setup();
    s.sample(60000);
    s.accept(true);
    s.sample(70000);
    const stored = s.inner.peek(1000).map((r) => r.seq);
    // Refused at 0, 1, 3, 7, 15 and 31 s; at 63 s the whole spill went in.
    expect(s.tries.filter((t) => t < 63000)).toEqual([0, 1000, 3000, 7000, 15000, 31000]);
    expect(s.tries.filter((t) => t === 63000).length).toBe(33);
    expect(stored).toEqual([...stored].sort((a, b) => a - b));
    expect(new Set(stored).size).toBe(stored.length);
    expect(stored.at(-1)).toBe(s.produced());
    // The spill keeps 32 records: the older ones are lost, and counted.
    expect(s.asm.failed()).toBe(s.produced() - stored.length);
    expect(stored[0]).toBe(s.asm.failed() + 1);
    // Back to one try per sample once flash works.
    expect(s.tries.filter((t) => t > 63000).length).toBe(66);
  });

  it('starts again from one sample period after a success', () => {
    const s = setup();
    s.sample(10000);
    s.accept(true);
    s.sample(10000);
    s.accept(false);
    const from = s.time.now();
    s.sample(10000);
    expect(s.tries.filter((t) => t >= from).map((t) => t - from)).toEqual([0, 1000, 3000, 7000]);
  });
});

/** Seeded PRNG (an LCG): the jitter repeats from run to run. */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 4294967296;
}

describe('records per period with the sampler in front', () => {
  it('one record per period per device with reads of 5 to 40 ms and the loop blocked up to 300 ms', () => {
    const time = createFakeTime();
    const rand = lcg(11);
    const within = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
    // Each read holds the loop: on the board an ADC read sleeps 1 ms, and a
    // temperature read averages 8 of them.
    const reading = (name: string): Sensor => ({
      name,
      sample() {
        time.jump(within(5, 40));
        return { value: 1, unit: name === 'door' ? '' : 'u' };
      },
      close: () => undefined,
    });
    const devices: DeviceConfig[] = [
      { name: 'tv', deviceId: 1, devicePin: 1111, format: 'Value', sensors: ['temp'], decimals: 2 },
      { name: 'tj', deviceId: 2, devicePin: 2222, format: 'JSON', sensors: ['temp', 'soil', 'door'], decimals: 2 },
      { name: 'tx', deviceId: 3, devicePin: 3333, format: 'XML', sensors: ['temp', 'soil', 'door'], decimals: 2 },
    ];
    const queue = createMemoryOutbox({ maxRecords: 10000 });
    const log = { info: () => undefined, error: () => undefined };
    const asm = createAssembler({
      devices, queue, clock: time.clock, timers: time.timers, time: createTimeKeeper({ clock: time.clock }), bootId: 1, log, retryMs: PERIOD_MS,
    });
    const sampler = createSampler({
      sensors: ['temp', 'soil', 'door'].map((n) => ({ sensor: reading(n), filter: createChain([]), intervalMs: PERIOD_MS })),
      timers: time.timers, clock: time.clock, log, onSample: (e) => asm.onSample(e),
    });
    // Something else holds the loop now and then (a request, a flash write),
    // at moments unrelated to the sampling period.
    let blocked = 0;
    const block = (): void => {
      const ms = within(0, 300);
      blocked += ms;
      time.jump(ms);
      time.timers.setTimeout(block, within(50, 900));
    };
    time.timers.setTimeout(block, 7);
    sampler.start();
    time.advanceSync(120000);
    sampler.stop();
    asm.stop();
    expect(blocked).toBeGreaterThan(15000);
    const recs = queue.peek(10000);
    // The Value device writes every temperature sample: one per period.
    const periods = recs.filter((r) => r.device === 'tv').length;
    expect(periods).toBeGreaterThan(100);
    for (const d of devices) {
      const mine = recs.filter((r) => r.device === d.name);
      expect(mine.length, d.name).toBe(periods);
      // One period apart at least: no record split across two.
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.uptimeMs - mine[i - 1]!.uptimeMs, d.name).toBeGreaterThanOrEqual(PERIOD_MS - 80);
    }
    for (const r of recs.filter((x) => x.device === 'tj')) expect(Object.keys(JSON.parse(r.payload) as object).slice(0, 3)).toEqual(['temp', 'soil', 'door']);
    for (const r of recs.filter((x) => x.device === 'tx')) expect(r.payload.match(/<(temp|soil|door)/g)).toEqual(['<temp', '<soil', '<door']);
    expect(sampler.stats().runs).toBe(3 * periods);
  });
});

describe('the readings kept', () => {
  it('a kept reading holds sensorId, value, unit and uptimeMs, and decimals only while whole', () => {
    const time = createFakeTime();
    const queue = createMemoryOutbox({ maxRecords: 100 });
    const errors: string[] = [];
    const asm = createAssembler({
      devices: [DEVICE, { name: 'tj', deviceId: 2, devicePin: 2222, format: 'JSON', sensors: ['temp', 'door'], decimals: 2 }],
      queue, clock: time.clock, timers: time.timers, time: createTimeKeeper({ clock: time.clock }),
      bootId: 1, log: { info: () => undefined, error: (l) => void errors.push(l) }, retryMs: PERIOD_MS,
    });
    handed.length = 0;
    const kept = (id: string): Reading => {
      const r = handed.at(-1)!.find((x) => x.sensorId === id);
      expect(r, id).toBeDefined();
      return r!;
    };
    asm.onSample({ sensor: 'temp', value: 21.25, unit: 'C', atMs: time.now() });
    asm.onSample({ sensor: 'door', value: 1, unit: '', atMs: time.now(), whole: true });
    time.advanceSync(PERIOD_MS);
    expect(Object.keys(kept('temp')).sort()).toEqual(['sensorId', 'unit', 'uptimeMs', 'value']);
    expect(kept('temp')).toEqual({ sensorId: 'temp', value: 21.25, unit: 'C', uptimeMs: 0 });
    expect(Object.keys(kept('door')).sort()).toEqual(['decimals', 'sensorId', 'unit', 'uptimeMs', 'value']);
    // A sensor whose sample is no longer whole (a filter averaged it) is back to four fields.
    asm.onSample({ sensor: 'door', value: 0.5, unit: '', atMs: time.now() });
    time.advanceSync(PERIOD_MS);
    expect(Object.keys(kept('door')).sort()).toEqual(['sensorId', 'unit', 'uptimeMs', 'value']);
    const payloads = queue.peek(100).filter((r) => r.device === 'tj').map((r) => r.payload);
    expect(payloads).toEqual(['{"temp":21.25,"door":1,"seq":2,"uptime_ms":0}', '{"temp":21.25,"door":0.50,"seq":3,"uptime_ms":1000}']);
    expect(errors).toEqual([]);
  });
});
