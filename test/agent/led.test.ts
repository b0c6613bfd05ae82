import { describe, expect, it } from 'vitest';
import { createLed, PULSE_MS } from '../../src/agent/led';
import type { DigitalOut, TimerId, Timers } from '../../src/ports/ports';

// A fake timer queue on a fake clock: advance() fires due timers in deadline
// order (ties in arming order) and moves time to each deadline as it goes.
function fakeTime() {
  let now = 0;
  let nextId = 1;
  let queue: Array<{ id: number; at: number; cb: () => void }> = [];
  const timers: Timers = {
    setTimeout(cb, ms) {
      const id = nextId++;
      queue.push({ id, at: now + ms, cb });
      return id;
    },
    clearTimeout(id: TimerId) {
      queue = queue.filter((t) => t.id !== id);
    },
  };
  return {
    timers,
    now: () => now,
    pending: () => queue.length,
    advance(ms: number) {
      const end = now + ms;
      for (;;) {
        let next: (typeof queue)[number] | undefined;
        for (const t of queue) if (t.at <= end && (!next || t.at < next.at)) next = t;
        if (!next) break;
        const due = next;
        queue = queue.filter((t) => t !== due);
        now = due.at;
        due.cb();
      }
      now = end;
    },
  };
}

function setup() {
  const time = fakeTime();
  const writes: Array<[number, boolean]> = [];
  const out: DigitalOut = {
    write: (high) => writes.push([time.now(), high]),
    close: () => {},
  };
  const led = createLed({ out, timers: time.timers });
  return { time, writes, led };
}

const ON = true;
const OFF = false;

describe('LED patterns', () => {
  it('connecting: 100 ms on, 100 ms off', () => {
    const { time, writes, led } = setup();
    led.show('connecting');
    time.advance(1000);
    expect(writes).toEqual([
      [0, ON], [100, OFF], [200, ON], [300, OFF], [400, ON],
      [500, OFF], [600, ON], [700, OFF], [800, ON], [900, OFF], [1000, ON],
    ]);
    expect(time.pending()).toBe(1);
  });

  it('offline: a double blink every 2 s', () => {
    const { time, writes, led } = setup();
    led.show('offline');
    time.advance(4500);
    expect(writes).toEqual([
      [0, ON], [100, OFF], [200, ON], [300, OFF],
      [2000, ON], [2100, OFF], [2200, ON], [2300, OFF],
      [4000, ON], [4100, OFF], [4200, ON], [4300, OFF],
    ]);
    expect(time.pending()).toBe(1);
  });

  it('safe: 1 s on, 1 s off', () => {
    const { time, writes, led } = setup();
    led.show('safe');
    time.advance(4500);
    expect(writes).toEqual([[0, ON], [1000, OFF], [2000, ON], [3000, OFF], [4000, ON]]);
  });

  it('off: one write to dark, no timer', () => {
    const { time, writes, led } = setup();
    led.show('off');
    time.advance(10000);
    expect(writes).toEqual([[0, OFF]]);
    expect(time.pending()).toBe(0);
  });

  it('online: dark and idle with no timer', () => {
    const { time, writes, led } = setup();
    led.show('online');
    time.advance(10000);
    expect(writes).toEqual([[0, OFF]]);
    expect(time.pending()).toBe(0);
  });

  it('online: each pulse is one short flash', () => {
    const { time, writes, led } = setup();
    led.show('online');
    time.advance(1000);
    led.pulse();
    time.advance(2000);
    led.pulse();
    time.advance(1000);
    expect(writes).toEqual([[0, OFF], [1000, ON], [1000 + PULSE_MS, OFF], [3000, ON], [3000 + PULSE_MS, OFF]]);
    expect(PULSE_MS).toBe(50);
    expect(time.pending()).toBe(0);
  });

  it('online: pulses during a lit flash are absorbed, not queued', () => {
    const { time, writes, led } = setup();
    led.show('online');
    led.pulse();
    time.advance(10);
    led.pulse();
    led.pulse();
    time.advance(1000);
    expect(writes).toEqual([[0, OFF], [0, ON], [PULSE_MS, OFF]]);
  });

  it('pulse does nothing outside online', () => {
    const { time, writes, led } = setup();
    led.pulse();
    led.show('safe');
    time.advance(500);
    led.pulse();
    time.advance(1000);
    led.show('off');
    led.pulse();
    time.advance(1000);
    expect(writes).toEqual([[0, ON], [1000, OFF]]);
    expect(time.pending()).toBe(0);
  });
});

describe('LED transitions', () => {
  it('writes only when the level changes, across mode switches', () => {
    const { time, writes, led } = setup();
    led.show('off');
    led.show('online'); // already dark: no write
    led.show('offline');
    time.advance(50);
    led.show('connecting'); // already lit: no write at 50
    time.advance(150);
    led.show('safe'); // lit at 150 by connecting: no write
    time.advance(1000);
    expect(writes).toEqual([[0, OFF], [0, ON], [150, OFF], [200, ON], [1200, OFF]]);
  });

  it('showing the current mode again keeps its phase', () => {
    const { time, writes, led } = setup();
    led.show('safe');
    time.advance(600);
    led.show('safe');
    time.advance(1400);
    expect(writes).toEqual([[0, ON], [1000, OFF], [2000, ON]]);
  });

  it('a new mode starts its pattern from the beginning and leaves one timer', () => {
    const { time, writes, led } = setup();
    led.show('safe');
    time.advance(1500);
    led.show('offline');
    expect(time.pending()).toBe(1);
    time.advance(2400);
    expect(writes).toEqual([
      [0, ON], [1000, OFF],
      [1500, ON], [1600, OFF], [1700, ON], [1800, OFF],
      [3500, ON], [3600, OFF], [3700, ON], [3800, OFF],
    ]);
  });

  it('leaving online during a flash cancels the flash timer', () => {
    const { time, writes, led } = setup();
    led.show('online');
    led.pulse();
    led.show('safe'); // still lit: no write
    expect(time.pending()).toBe(1);
    time.advance(1000);
    expect(writes).toEqual([[0, OFF], [0, ON], [1000, OFF]]);
  });

  it('stop: dark, no timer left, and nothing more is written', () => {
    const { time, writes, led } = setup();
    led.show('connecting');
    time.advance(50);
    led.stop();
    expect(time.pending()).toBe(0);
    time.advance(5000);
    led.stop();
    expect(writes).toEqual([[0, ON], [50, OFF]]);
  });

  it('a throwing write neither escapes nor breaks the pattern, and is retried on the next change', () => {
    const time = fakeTime();
    const writes: Array<[number, boolean]> = [];
    let failNext = true;
    const out: DigitalOut = {
      write: (high) => {
        if (failNext) {
          failNext = false;
          throw new Error('bus');
        }
        writes.push([time.now(), high]);
      },
      close: () => {},
    };
    const led = createLed({ out, timers: time.timers });
    expect(() => led.show('safe')).not.toThrow();
    time.advance(3000);
    expect(writes).toEqual([[1000, OFF], [2000, ON], [3000, OFF]]);
  });
});
