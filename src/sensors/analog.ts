import type { SensorConfig } from '../config/types';
import type { AnalogIn, Pins } from '../ports/ports';
import { readMeanFraction } from './mean-fraction';
import type { Sensor } from './sensor';

/**
 * An ADC pin read as volts, then mapped linearly to the configured unit:
 * by two-point calibration when `points` is set, else by scale and offset.
 */
export function createAnalogSensor(o: { cfg: SensorConfig; pins: Pins }): Sensor {
  const { cfg } = o;
  const vrefV = cfg.vrefV ?? 3.3;
  let scale = cfg.scale ?? 1;
  let offset = cfg.offset ?? 0;
  if (cfg.points) {
    const [[v1, y1], [v2, y2]] = cfg.points;
    scale = (y2 - y1) / (v2 - v1);
    offset = y1 - v1 * scale;
  }
  let input: AnalogIn | undefined = o.pins.analogIn(cfg.pin);
  return {
    name: cfg.name,
    sample() {
      if (!input) return undefined;
      const f = readMeanFraction(input, cfg.oversample ?? 1);
      if (f === undefined) return undefined;
      const value = f * vrefV * scale + offset;
      // Degenerate calibration points (equal volts) would otherwise send NaN or Infinity.
      return isFinite(value) ? { value, unit: cfg.unit } : undefined;
    },
    close() {
      if (input) input.close();
      input = undefined;
    },
  };
}
