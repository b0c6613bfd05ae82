import { describe, expect, it } from 'vitest';
import { createSensor } from '../../src/sensors/index';
import { fakePins, fakeTimers, sensorConfig } from './fakes';

describe('createSensor', () => {
  it('builds the sensor of each kind on its pin', () => {
    // The counter reads its starting level (0) when built; the digital sample then reads 1.
    const pins = fakePins({ fractions: [0.5], levels: [0, 1] });
    const timers = fakeTimers();
    const a = createSensor({ cfg: sensorConfig({ kind: 'analog', pin: 27, name: 'a', unit: 'V' }), pins, timers });
    const t = createSensor({ cfg: sensorConfig({ kind: 'temperature', pin: 30, name: 't', unit: 'C' }), pins, timers });
    const d = createSensor({ cfg: sensorConfig({ kind: 'digital', pin: 2, name: 'd' }), pins, timers });
    const c = createSensor({ cfg: sensorConfig({ kind: 'counter', pin: 3, name: 'c' }), pins, timers });
    expect(pins.opened).toEqual(['analog 27', 'analog 30', 'digital 2 none', 'digital 3 up']);
    expect([a.name, t.name, d.name, c.name]).toEqual(['a', 't', 'd', 'c']);
    expect(a.sample()).toEqual({ value: 1.65, unit: 'V' });
    expect(d.sample()).toEqual({ value: 1, unit: '' });
    expect(timers.pending()).toBe(1);
    c.close();
    expect(timers.pending()).toBe(0);
  });
});
