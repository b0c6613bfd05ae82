import { describe, expect, it } from 'vitest';
import type { SensorConfig } from '../../src/config/types';
import type { Pins } from '../../src/ports/ports';
import { createSensor } from '../../src/sensors/index';
import { fakeTimers, fakePins, sensorConfig } from './fakes';

const createAnalogSensor = (o: { cfg: SensorConfig; pins: Pins }) => createSensor({ ...o, timers: fakeTimers() });

const cfg = (over = {}) => sensorConfig({ kind: 'analog', pin: 26, unit: 'V', ...over });

describe('analog sensor', () => {
  it('reports volts by default (fraction x 3.3)', () => {
    const pins = fakePins({ fractions: [0.5, 0.25] });
    const s = createAnalogSensor({ cfg: cfg(), pins });
    expect(pins.opened).toEqual(['analog 26']);
    expect(s.name).toBe('s1');
    expect(s.sample()).toEqual({ value: 1.65, unit: 'V' });
    expect(s.sample()).toEqual({ value: 0.825, unit: 'V' });
  });

  it('uses the configured reference voltage', () => {
    const s = createAnalogSensor({ cfg: cfg({ vrefV: 2 }), pins: fakePins({ fractions: [0.75] }) });
    expect(s.sample()).toEqual({ value: 1.5, unit: 'V' });
  });

  it('applies scale and offset', () => {
    const s = createAnalogSensor({
      cfg: cfg({ vrefV: 4, scale: 2.5, offset: -1, unit: 'kPa' }),
      pins: fakePins({ fractions: [0.5] }),
    });
    // 0.5 * 4 V = 2 V -> 2 * 2.5 - 1
    expect(s.sample()).toEqual({ value: 4, unit: 'kPa' });
  });

  it('two-point calibration maps both points exactly and overrides scale/offset', () => {
    const s = createAnalogSensor({
      cfg: cfg({ vrefV: 4, scale: 100, offset: 100, points: [[1, 0], [3, 100]], unit: '%' }),
      pins: fakePins({ fractions: [0.25, 0.75, 0.5, 0] }),
    });
    expect(s.sample()).toEqual({ value: 0, unit: '%' });
    expect(s.sample()).toEqual({ value: 100, unit: '%' });
    expect(s.sample()).toEqual({ value: 50, unit: '%' });
    // Below the first point the line extends.
    expect(s.sample()).toEqual({ value: -50, unit: '%' });
  });

  it('averages N reads per sample when oversampling', () => {
    const pins = fakePins({ fractions: [0.125, 0.25, 0.375, 0.5, 1] });
    const s = createAnalogSensor({ cfg: cfg({ vrefV: 4, oversample: 4 }), pins });
    // mean fraction 0.3125 -> 1.25 V
    expect(s.sample()).toEqual({ value: 1.25, unit: 'V' });
    expect(pins.reads).toBe(4);
  });

  it('accepts the ends of the range 0 and 1', () => {
    const s = createAnalogSensor({ cfg: cfg({ vrefV: 2 }), pins: fakePins({ fractions: [0, 1] }) });
    expect(s.sample()).toEqual({ value: 0, unit: 'V' });
    expect(s.sample()).toEqual({ value: 2, unit: 'V' });
  });

  it.each([[NaN], [-0.001], [1.001], [Infinity]])('a raw fraction of %s gives undefined', (f) => {
    const s = createAnalogSensor({ cfg: cfg(), pins: fakePins({ fractions: [f, 0.5] }) });
    expect(s.sample()).toBeUndefined();
    expect(s.sample()).toEqual({ value: 1.65, unit: 'V' });
  });

  it('one bad read among the oversampled ones spoils the sample', () => {
    const pins = fakePins({ fractions: [0.5, NaN, 0.5, 0.5] });
    const s = createAnalogSensor({ cfg: cfg({ oversample: 4 }), pins });
    expect(s.sample()).toBeUndefined();
    // It stops at the bad read instead of wasting blocking ADC reads.
    expect(pins.reads).toBe(2);
  });

  it('calibration points with equal volts give undefined, not Infinity', () => {
    const s = createAnalogSensor({
      cfg: cfg({ points: [[1, 0], [1, 10]] }),
      pins: fakePins({ fractions: [0.5] }),
    });
    expect(s.sample()).toBeUndefined();
  });

  it('close is safe twice and sampling afterwards reads nothing', () => {
    const pins = fakePins({ fractions: [0.5] });
    const s = createAnalogSensor({ cfg: cfg(), pins });
    s.close();
    s.close();
    expect(pins.closed).toEqual(['analog 26']);
    expect(s.sample()).toBeUndefined();
    expect(pins.reads).toBe(0);
  });
});
