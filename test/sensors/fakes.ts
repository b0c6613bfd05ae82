// Fakes built from the port interfaces: scripted reads, recorded opens/closes.
import type { AnalogIn, DigitalIn, DigitalOut, PwmOut, Pins, Pull, TimerId, Timers } from '../../src/ports/ports';
import type { SensorConfig } from '../../src/config/types';

export interface FakePins extends Pins {
  /** Values each read returns, in order; a read past the end throws (a test bug). */
  fractions: number[];
  levels: Array<0 | 1>;
  opened: string[];
  closed: string[];
  reads: number;
}

export function fakePins(script: { fractions?: number[]; levels?: Array<0 | 1> } = {}): FakePins {
  const next = <T>(list: T[]): T => {
    if (list.length === 0) throw new Error('script exhausted');
    p.reads++;
    return list.shift() as T;
  };
  const p: FakePins = {
    fractions: script.fractions ? [...script.fractions] : [],
    levels: script.levels ? [...script.levels] : [],
    opened: [],
    closed: [],
    reads: 0,
    analogIn(pin: number): AnalogIn {
      p.opened.push('analog ' + pin);
      return { readFraction: () => next(p.fractions), close: () => void p.closed.push('analog ' + pin) };
    },
    digitalIn(pin: number, pull: Pull): DigitalIn {
      p.opened.push('digital ' + pin + ' ' + pull);
      return { read: () => next(p.levels), close: () => void p.closed.push('digital ' + pin) };
    },
    digitalOut(): DigitalOut {
      throw new Error('not used by sensors');
    },
    pwmOut(): PwmOut {
      throw new Error('not used by sensors');
    },
    led(): DigitalOut {
      throw new Error('not used by sensors');
    },
  };
  return p;
}

export interface FakeTimers extends Timers {
  /** Runs every timer due within the next `ms`, in deadline order. */
  advance(ms: number): void;
  pending(): number;
}

export function fakeTimers(): FakeTimers {
  let nowMs = 0;
  let nextId = 1;
  let queue: Array<{ id: number; atMs: number; cb: () => void }> = [];
  return {
    setTimeout(cb: () => void, ms: number): TimerId {
      const id = nextId++;
      queue.push({ id, atMs: nowMs + ms, cb });
      return id;
    },
    clearTimeout(id: TimerId) {
      queue = queue.filter((t) => t.id !== id);
    },
    advance(ms: number) {
      const endMs = nowMs + ms;
      for (;;) {
        queue.sort((a, b) => a.atMs - b.atMs || a.id - b.id);
        const t = queue[0];
        if (!t || t.atMs > endMs) break;
        queue.shift();
        nowMs = t.atMs;
        t.cb();
      }
      nowMs = endMs;
    },
    pending: () => queue.length,
  };
}

export function sensorConfig(over: Partial<SensorConfig> & Pick<SensorConfig, 'kind' | 'pin'>): SensorConfig {
  return { name: 's1', intervalMs: 60000, unit: '', filters: [], ...over };
}
