import type { SensorConfig } from '../config/types';
import type { AnalogIn, Pins } from '../ports/ports';
import { readMeanFraction } from './mean-fraction';
import type { Sensor } from './sensor';

/**
 * The on-chip temperature sensor (cfg.pin is the board's temperature
 * pseudo-pin; config validation checks it). Datasheet formula for RP2040 and
 * RP2350: 0.706 V at 27 C, falling 1.721 mV per degree. It is single-point and
 * VREF-dependent, hence the averaging by default and the offsetC trim.
 */
export function createTemperatureSensor(o: { cfg: SensorConfig; pins: Pins }): Sensor {
  const { cfg } = o;
  const vrefV = cfg.vrefV ?? 3.3;
  const offsetC = cfg.offsetC ?? 0;
  let input: AnalogIn | undefined = o.pins.analogIn(cfg.pin);
  return {
    name: cfg.name,
    sample() {
      if (!input) return undefined;
      const f = readMeanFraction(input, cfg.oversample ?? 8);
      if (f === undefined) return undefined;
      return { value: 27 - (f * vrefV - 0.706) / 0.001721 + offsetC, unit: cfg.unit };
    },
    close() {
      if (input) input.close();
      input = undefined;
    },
  };
}
