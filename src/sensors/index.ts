import type { SensorConfig } from '../config/types';
import type { Pins, Timers } from '../ports/ports';
import { createAnalogSensor } from './analog';
import { createCounterSensor } from './counter';
import { createDigitalSensor } from './digital';
import type { Sensor } from './sensor';
import { createTemperatureSensor } from './temperature';

export type { Sensor, SensorSample } from './sensor';

/** One file per kind; a new kind (an I2C part, say) adds its file and a case here. */
export function createSensor(o: { cfg: SensorConfig; pins: Pins; timers: Timers }): Sensor {
  switch (o.cfg.kind) {
    case 'digital':
      return createDigitalSensor(o);
    case 'analog':
      return createAnalogSensor(o);
    case 'temperature':
      return createTemperatureSensor(o);
    case 'counter':
      return createCounterSensor(o);
  }
}
