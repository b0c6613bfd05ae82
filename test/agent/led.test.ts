import { describe, expect, it } from 'vitest';
import { createFakeTime } from '../fakes/time';
import { createLed, PULSE_MS } from '../../src/agent/led';
import type { DigitalOut } from '../../src/ports/ports';


function setup() {
  const time = createFakeTime();
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
    time.advanceSync(1000);
    expect(writes).toEqual([
      [0, ON], [100, OFF], [200, ON], [300, OFF], [400, ON],
      [500, OFF], [600, ON], [700, OFF], [800, ON], [900, OFF], [1000, ON],
    ]);
    expect(time.pending()).toBe(1);
  });

  it('offline: a double blink every 2 s', () => {
    const { time, writes, led } = setup();
    led.show('offline');
    time.advanceSync(4500);
    expect(writes).toEqual([
      [0, ON], [100, OFF], [200, ON], [300, OFF],
      [2000, ON], [2100, OFF], [2200, ON], [2300, OFF],
      [4000, ON], [4100, OFF], [4200, ON], [4300, OFF],
    ]);
    expect(time.pending()).toBe(1);
  });

  it('held: a triple blink every 2 s, told apart from offline', () => {
    const { time, writes, led } = setup();
    led.show('held');
    time.advanceSync(4500);
    expect(writes).toEqual([
      [0, ON], [100, OFF], [200, ON], [300, OFF], [400, ON], [500, OFF],
      [2000, ON], [2100, OFF], [2200, ON], [2300, OFF], [2400, ON], [2500, OFF],
      [4000, ON], [4100, OFF], [4200, ON], [4300, OFF], [4400, ON], [4500, OFF],
    ]);
    expect(time.pending()).toBe(1);
  });

  it('safe: 1 s on, 1 s off', () => {
    const { time, writes, led } = setup();
    led.show('safe');
    time.advanceSync(4500);
    expect(writes).toEqual([[0, ON], [1000, OFF], [2000, ON], [3000, OFF], [4000, ON]]);
  });

  it('off: one write to dark, no timer', () => {
    const { time, writes, led } = setup();
    led.show('off');
    time.advanceSync(10000);
    expect(writes).toEqual([[0, OFF]]);
    expect(time.pending()).toBe(0);
  });

  it('online: dark and idle with no timer', () => {
    const { time, writes, led } = setup();
    led.show('online');
    time.advanceSync(10000);
    expect(writes).toEqual([[0, OFF]]);
    expect(time.pending()).toBe(0);
  });

  it('online: each pulse is one short flash', () => {
    const { time, writes, led } = setup();
    led.show('online');
    time.advanceSync(1000);
    led.pulse();
    time.advanceSync(2000);
    led.pulse();
    time.advanceSync(1000);
    expect(writes).toEqual([[0, OFF], [1000, ON], [1000 + PULSE_MS, OFF], [3000, ON], [3000 + PULSE_MS, OFF]]);
    expect(PULSE_MS).toBe(50);
    expect(time.pending()).toBe(0);
  });

  it('online: pulses during a lit flash are absorbed, not queued', () => {
    const { time, writes, led } = setup();
    led.show('online');
    led.pulse();
    time.advanceSync(10);
    led.pulse();
    led.pulse();
    time.advanceSync(1000);
    expect(writes).toEqual([[0, OFF], [0, ON], [PULSE_MS, OFF]]);
  });

  it('pulse does nothing outside online', () => {
    const { time, writes, led } = setup();
    led.pulse();
    led.show('safe');
    time.advanceSync(500);
    led.pulse();
    time.advanceSync(1000);
    led.show('off');
    led.pulse();
    time.advanceSync(1000);
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
    time.advanceSync(50);
    led.show('connecting'); // already lit: no write at 50
    time.advanceSync(150);
    led.show('safe'); // lit at 150 by connecting: no write
    time.advanceSync(1000);
    expect(writes).toEqual([[0, OFF], [0, ON], [150, OFF], [200, ON], [1200, OFF]]);
  });

  it('showing the current mode again keeps its phase', () => {
    const { time, writes, led } = setup();
    led.show('safe');
    time.advanceSync(600);
    led.show('safe');
    time.advanceSync(1400);
    expect(writes).toEqual([[0, ON], [1000, OFF], [2000, ON]]);
  });

  it('a new mode starts its pattern from the beginning and leaves one timer', () => {
    const { time, writes, led } = setup();
    led.show('safe');
    time.advanceSync(1500);
    led.show('offline');
    expect(time.pending()).toBe(1);
    time.advanceSync(2400);
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
    time.advanceSync(1000);
    expect(writes).toEqual([[0, OFF], [0, ON], [1000, OFF]]);
  });

  it('stop: dark, no timer left, and nothing more is written', () => {
    const { time, writes, led } = setup();
    led.show('connecting');
    time.advanceSync(50);
    led.stop();
    expect(time.pending()).toBe(0);
    time.advanceSync(5000);
    led.stop();
    expect(writes).toEqual([[0, ON], [50, OFF]]);
  });

  it('a throwing write neither escapes nor breaks the pattern, and is retried on the next change', () => {
    const time = createFakeTime();
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
    time.advanceSync(3000);
    expect(writes).toEqual([[1000, OFF], [2000, ON], [3000, OFF]]);
  });
});
