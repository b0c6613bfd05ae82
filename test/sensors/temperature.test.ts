import { describe, expect, it } from 'vitest';
import type { SensorConfig } from '../../src/config/types';
import type { Pins } from '../../src/ports/ports';
import { createSensor } from '../../src/sensors/index';
import { fakeTimers, fakePins, sensorConfig } from './fakes';

const createTemperatureSensor = (o: { cfg: SensorConfig; pins: Pins }) => createSensor({ ...o, timers: fakeTimers() });

const cfg = (over = {}) => sensorConfig({ kind: 'temperature', pin: 30, unit: 'C', ...over });
const fractionFor = (volts: number, vrefV = 3.3) => volts / vrefV;

describe('temperature sensor', () => {
  it('0.706 V reads 27 C', () => {
    const pins = fakePins({ fractions: Array(8).fill(fractionFor(0.706)) });
    const s = createTemperatureSensor({ cfg: cfg(), pins });
    expect(pins.opened).toEqual(['analog 30']);
    const r = s.sample();
    expect(r && r.unit).toBe('C');
    expect(r && r.value).toBeCloseTo(27, 9);
  });

  it('falls 1 C per 1.721 mV: 0.68879 V reads 37 C, 0.79205 V reads -23 C', () => {
    const s = createTemperatureSensor({
      cfg: cfg({ oversample: 1 }),
      pins: fakePins({ fractions: [fractionFor(0.68879), fractionFor(0.79205)] }),
    });
    expect(s.sample()!.value).toBeCloseTo(37, 9);
    expect(s.sample()!.value).toBeCloseTo(-23, 9);
  });

  it('averages 8 reads by default', () => {
    const lo = fractionFor(0.706 - 0.01721);
    const hi = fractionFor(0.706 + 0.01721);
    const pins = fakePins({ fractions: [lo, hi, lo, hi, lo, hi, lo, hi, 0.9] });
    const s = createTemperatureSensor({ cfg: cfg(), pins });
    expect(s.sample()!.value).toBeCloseTo(27, 9);
    expect(pins.reads).toBe(8);
  });

  it('honours a configured oversample count', () => {
    const pins = fakePins({ fractions: [fractionFor(0.706), fractionFor(0.706), 0.9] });
    const s = createTemperatureSensor({ cfg: cfg({ oversample: 2 }), pins });
    expect(s.sample()!.value).toBeCloseTo(27, 9);
    expect(pins.reads).toBe(2);
  });

  it('adds offsetC and uses the configured reference voltage', () => {
    const s = createTemperatureSensor({
      cfg: cfg({ oversample: 1, offsetC: -1.5, vrefV: 3 }),
      pins: fakePins({ fractions: [fractionFor(0.706, 3)] }),
    });
    expect(s.sample()!.value).toBeCloseTo(25.5, 9);
  });

  it('a NaN or out-of-range read gives undefined', () => {
    const s = createTemperatureSensor({
      cfg: cfg({ oversample: 1 }),
      pins: fakePins({ fractions: [NaN, 1.5, -0.5] }),
    });
    expect(s.sample()).toBeUndefined();
    expect(s.sample()).toBeUndefined();
    expect(s.sample()).toBeUndefined();
  });

  it('close is safe twice and sampling afterwards reads nothing', () => {
    const pins = fakePins({ fractions: [0.2] });
    const s = createTemperatureSensor({ cfg: cfg(), pins });
    s.close();
    s.close();
    expect(pins.closed).toEqual(['analog 30']);
    expect(s.sample()).toBeUndefined();
    expect(pins.reads).toBe(0);
  });
});
