import type { SensorConfig } from '../config/types';
import type { DigitalIn, Pins } from '../ports/ports';
import type { Sensor } from './sensor';

/** Level 0/1 of a GPIO; `invert` reports 1 for a low level (active-low contacts). */
export function createDigitalSensor(o: { cfg: SensorConfig; pins: Pins }): Sensor {
  const { cfg } = o;
  const invert = cfg.invert === true;
  let input: DigitalIn | undefined = o.pins.digitalIn(cfg.pin, cfg.pull ?? 'none');
  return {
    name: cfg.name,
    sample() {
      if (!input) return undefined;
      const level = input.read();
      return { value: invert ? 1 - level : level, unit: cfg.unit };
    },
    close() {
      if (input) input.close();
      input = undefined;
    },
  };
}
