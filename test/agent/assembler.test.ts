// The assembler's RAM spill against an outbox that refuses records (flash
// full or worn): records stay in order and counted, and the refusing file
// system is tried again with a backoff, not on every sample.
import { describe, expect, it } from 'vitest';
import { createAssembler } from '../../src/agent/assembler';
import { createTimeKeeper } from '../../src/agent/time';
import type { DeviceConfig } from '../../src/model';
import { createMemoryOutbox } from '../../src/queue/memory';
import type { OutboxRecord } from '../../src/queue/types';
import { createFakeTime } from '../fakes/time';

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
