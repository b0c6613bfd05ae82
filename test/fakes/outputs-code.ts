// The outputs' two cold modules as the loader hands them out on a board
// ('outputs' kept while they run, 'output-read' for each read), straight
// from their sources: for harnesses that run the runtime without a build.
import { startOutputs } from '../../src/agent/outputs';
import { heldPicker } from '../../src/agent/held';
import type { LoadCold } from '../../src/agent/outputs';
import { readSource } from '../../src/agent/output-read';
import { failI2c } from '../../src/sensors/i2c/fail';
import { goI2c, readI2c } from '../../src/sensors/i2c/sensors';
import { startI2c } from '../../src/sensors/i2c/start';
import * as bme280 from '../../src/sensors/i2c/drivers/bme280';
import * as sht3x from '../../src/sensors/i2c/drivers/sht3x';
import * as sht4x from '../../src/sensors/i2c/drivers/sht4x';
import * as bh1750 from '../../src/sensors/i2c/drivers/bh1750';

/** Each I2C kind's two driver modules, as scripts/build/residency.ts (driverRows) names them. */
const DRIVERS = Object.fromEntries(Object.entries({ bme280, sht3x, sht4x, bh1750 }).flatMap(([kind, d]) => [[kind, d.steps], [kind + '-init', d.init]]));

/** The cold modules the running agent loads, by name (also the I2C sensors' and their drivers). */
export const OUTPUTS_CODE: Record<string, unknown> = { outputs: startOutputs, 'output-read': readSource, held: heldPicker, 'i2c-go': goI2c, 'i2c-read': readI2c, 'i2c-fail': failI2c, 'i2c-start': startI2c, ...DRIVERS };

/** Loads 'outputs' or 'output-read'; counts the loads of each in `loads`. */
export function loadOutputsCode(loads: Record<string, number> = {}): LoadCold {
  return <T>(name: string) => {
    loads[name] = (loads[name] || 0) + 1;
    return name in OUTPUTS_CODE ? { ok: true, value: OUTPUTS_CODE[name] as T } : { ok: false, error: 'cold code ' + name + ': not in this build' };
  };
}
