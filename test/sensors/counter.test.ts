import { describe, expect, it } from 'vitest';
import { createSensor as createCounterSensor } from '../../src/sensors/index';
import { fakePins, fakeTimers, sensorConfig } from './fakes';

const cfg = (over = {}) => sensorConfig({ kind: 'counter', pin: 6, unit: 'pulses', ...over });

describe('counter sensor', () => {
  it('counts rising edges since the previous sample, polling every 10 ms with a pull-up', () => {
    // First level is read at start; then one level per poll.
    const pins = fakePins({ levels: [0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0] });
    const timers = fakeTimers();
    const s = createCounterSensor({ cfg: cfg(), pins, timers });
    expect(pins.opened).toEqual(['digital 6 up']);

    timers.advance(70); // 7 polls: 1 1 0 1 0 0 1 -> edges at polls 1, 4, 7
    expect(pins.reads).toBe(8);
    expect(s.sample()).toEqual({ value: 3, unit: 'pulses' });
    expect(s.sample()).toEqual({ value: 0, unit: 'pulses' });

    timers.advance(40); // 1 0 1 0 after a 1 -> one edge
    expect(s.sample()).toEqual({ value: 1, unit: 'pulses' });
  });

  it('a level that is already high at start is not an edge', () => {
    const pins = fakePins({ levels: [1, 1, 0, 1] });
    const timers = fakeTimers();
    const s = createCounterSensor({ cfg: cfg(), pins, timers });
    timers.advance(30);
    expect(s.sample()).toEqual({ value: 1, unit: 'pulses' });
  });

  it('uses the configured poll period and pull', () => {
    const pins = fakePins({ levels: [0, 1, 0, 1, 0, 1] });
    const timers = fakeTimers();
    const s = createCounterSensor({ cfg: cfg({ pollMs: 25, pull: 'down' }), pins, timers });
    expect(pins.opened).toEqual(['digital 6 down']);
    timers.advance(74); // polls at 25 and 50 only
    expect(pins.reads).toBe(3);
    expect(s.sample()).toEqual({ value: 1, unit: 'pulses' });
    timers.advance(1);
    expect(pins.reads).toBe(4);
  });

  it('keeps exactly one poll armed at a time', () => {
    const timers = fakeTimers();
    createCounterSensor({ cfg: cfg(), pins: fakePins({ levels: [0, 0, 0, 0] }), timers });
    expect(timers.pending()).toBe(1);
    timers.advance(30);
    expect(timers.pending()).toBe(1);
  });

  it('close stops polling, is safe twice, and sampling afterwards gives undefined', () => {
    const pins = fakePins({ levels: [0, 1, 0, 1] });
    const timers = fakeTimers();
    const s = createCounterSensor({ cfg: cfg(), pins, timers });
    timers.advance(10);
    s.close();
    s.close();
    expect(timers.pending()).toBe(0);
    expect(pins.closed).toEqual(['digital 6']);
    timers.advance(100);
    expect(pins.reads).toBe(2);
    expect(s.sample()).toBeUndefined();
  });
});
