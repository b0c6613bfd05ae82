import { describe, expect, it } from 'vitest';
import { createSampler } from '../../src/agent/sampler';
import type { SampleEvent } from '../../src/agent/sampler';
import { createChain } from '../../src/filters/index';
import type { Sensor } from '../../src/sensors/index';
import { createFakeTime } from '../fakes/time';
import type { FakeTime } from '../fakes/time';

function scripted(name: string, values: (number | Error | undefined)[], time?: FakeTime): Sensor & { calls: number[] } {
  let i = 0;
  const calls: number[] = [];
  return {
    name,
    calls,
    sample() {
      calls.push(time ? time.now() : 0);
      const v = values[i++ % values.length];
      if (v instanceof Error) throw v;
      return v === undefined ? undefined : { value: v, unit: 'u' };
    },
    close: () => undefined,
  };
}

function run(sensors: { sensor: Sensor; intervalMs: number; filters?: Parameters<typeof createChain>[0] }[], time = createFakeTime()) {
  const events: SampleEvent[] = [];
  const errors: string[] = [];
  const s = createSampler({
    sensors: sensors.map((x) => ({ sensor: x.sensor, intervalMs: x.intervalMs, filter: createChain(x.filters ?? []) })),
    timers: time.timers,
    clock: time.clock,
    log: { info: () => undefined, error: (l) => void errors.push(l) },
    onSample: (e) => void events.push(e),
  });
  return { s, events, errors, time };
}

describe('sampler', () => {
  it('samples each sensor on its own period, starting at once', () => {
    const time = createFakeTime();
    const a = scripted('a', [1], time);
    const b = scripted('b', [2], time);
    const { s, events } = run([{ sensor: a, intervalMs: 1000 }, { sensor: b, intervalMs: 2500 }], time);
    s.start();
    time.advanceSync(5000);
    s.stop();
    expect(a.calls).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
    expect(b.calls).toEqual([0, 2500, 5000]);
    expect(events.filter((e) => e.sensor === 'b').map((e) => e.atMs)).toEqual([0, 2500, 5000]);
  });

  it('re-arms from the start of a run, so a slow sample does not shift the period', () => {
    const time = createFakeTime();
    const slow = scripted('slow', [1], time);
    // Each sample holds the loop for 300 ms (oversampling, a bus transaction).
    const wrapped: Sensor = { name: 'slow', sample: () => { const r = slow.sample(); time.jump(300); return r; }, close: () => undefined };
    const { s } = run([{ sensor: wrapped, intervalMs: 1000 }], time);
    s.start();
    time.advanceSync(3500);
    s.stop();
    expect(slow.calls).toEqual([0, 1000, 2000, 3000]);
  });

  it('after the loop was blocked, runs once late instead of catching up in a burst', () => {
    const time = createFakeTime();
    const a = scripted('a', [1], time);
    const { s } = run([{ sensor: a, intervalMs: 1000 }], time);
    s.start();
    time.advanceSync(2500);
    // A 30 s blocking Wi-Fi join: no timer runs meanwhile.
    time.jump(30000);
    time.advanceSync(2000);
    s.stop();
    expect(a.calls).toEqual([0, 1000, 2000, 32500, 33500, 34500]);
  });

  it('reads sensors that share a period in one pass, on one timer, however long each read takes', () => {
    const time = createFakeTime();
    const a = scripted('a', [1], time);
    const b = scripted('b', [2], time);
    const c = scripted('c', [3], time);
    // a's read holds the loop for 30 ms (an averaged ADC read).
    const slowA: Sensor = { name: 'a', sample: () => { const r = a.sample(); time.jump(30); return r; }, close: () => undefined };
    const { s, events } = run([{ sensor: slowA, intervalMs: 1000 }, { sensor: c, intervalMs: 5000 }, { sensor: b, intervalMs: 1000 }], time);
    s.start();
    expect(time.pending()).toBe(2);
    time.advanceSync(1990);
    // Something else holds the loop for 300 ms as they fall due.
    time.jump(300);
    time.advanceSync(500);
    s.stop();
    expect(a.calls).toEqual([0, 1000, 2290]);
    expect(b.calls).toEqual([30, 1030, 2320]);
    // The 5 s sensor has its own timer, after the first pass.
    expect(c.calls).toEqual([30]);
    expect(events.map((e) => e.sensor).join('')).toBe('abcabab');
  });

  it('reports a throwing sensor, skips it for that cycle and keeps sampling the others', () => {
    const time = createFakeTime();
    const bad = scripted('bad', [1, new Error('bus timeout'), 3], time);
    const good = scripted('good', [7], time);
    const { s, events, errors } = run([{ sensor: bad, intervalMs: 1000 }, { sensor: good, intervalMs: 1000 }], time);
    s.start();
    time.advanceSync(3000);
    s.stop();
    expect(errors).toEqual(['sampler: bad: Error: bus timeout']);
    expect(events.filter((e) => e.sensor === 'bad').map((e) => e.value)).toEqual([1, 3, 1]);
    expect(events.filter((e) => e.sensor === 'good')).toHaveLength(4);
    expect(s.stats()).toMatchObject({ runs: 8, errors: 1, lastError: 'bad: Error: bus timeout' });
  });

  it('counts samples the hardware or the filters dropped, and never passes NaN on', () => {
    const time = createFakeTime();
    const a = scripted('a', [undefined, NaN, 50, 200], time);
    const { s, events } = run([{ sensor: a, intervalMs: 1000, filters: [{ type: 'clamp', min: 0, max: 100 }] }], time);
    s.start();
    time.advanceSync(3000);
    s.stop();
    expect(events.map((e) => e.value)).toEqual([50]);
    expect(s.stats().dropped).toBe(3);
  });

  it('stops cleanly: no timer left, nothing sampled afterwards', () => {
    const time = createFakeTime();
    const a = scripted('a', [1], time);
    const { s } = run([{ sensor: a, intervalMs: 1000 }], time);
    s.start();
    time.advanceSync(1500);
    s.stop();
    expect(time.pending()).toBe(0);
    time.advanceSync(5000);
    expect(a.calls).toEqual([0, 1000]);
  });
});
