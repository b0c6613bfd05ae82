import { describe, expect, it } from 'vitest';
import type { SensorConfig } from '../../src/config/types';
import type { Pins } from '../../src/ports/ports';
import { createSensor } from '../../src/sensors/index';
import { fakeTimers, fakePins, sensorConfig } from './fakes';

const createDigitalSensor = (o: { cfg: SensorConfig; pins: Pins }) => createSensor({ ...o, timers: fakeTimers() });

describe('digital sensor', () => {
  it('reports the level with no pull by default', () => {
    const pins = fakePins({ levels: [1, 0, 1] });
    const s = createDigitalSensor({ cfg: sensorConfig({ kind: 'digital', pin: 7, name: 'door' }), pins });
    expect(pins.opened).toEqual(['digital 7 none']);
    expect(s.name).toBe('door');
    expect([s.sample(), s.sample(), s.sample()]).toEqual([
      { value: 1, unit: '' },
      { value: 0, unit: '' },
      { value: 1, unit: '' },
    ]);
  });

  it('passes the configured pull and inverts when asked', () => {
    const pins = fakePins({ levels: [1, 0] });
    const s = createDigitalSensor({
      cfg: sensorConfig({ kind: 'digital', pin: 3, pull: 'up', invert: true, unit: 'open' }),
      pins,
    });
    expect(pins.opened).toEqual(['digital 3 up']);
    expect(s.sample()).toEqual({ value: 0, unit: 'open' });
    expect(s.sample()).toEqual({ value: 1, unit: 'open' });
  });

  it('close is safe twice and sampling afterwards reads nothing', () => {
    const pins = fakePins({ levels: [1] });
    const s = createDigitalSensor({ cfg: sensorConfig({ kind: 'digital', pin: 3 }), pins });
    s.close();
    s.close();
    expect(pins.closed).toEqual(['digital 3']);
    expect(s.sample()).toBeUndefined();
    expect(pins.reads).toBe(0);
  });
});
