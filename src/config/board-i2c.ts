// Each board's I2C pins (boards/*.json, i2cSda), for the cold code that
// checks a configuration's buses and scans them. The device bundle's
// resident copy of its board leaves them out (scripts/build/build.ts,
// BOARD_COLD_ONLY): this file's two small tables ride in those cold modules
// instead of staying on the heap while the agent runs.
import { i2cSda as picoW } from '../../boards/pico-w.json';
import { i2cSda as pico2W } from '../../boards/pico2-w.json';

const I2C_SDA: Record<string, number[][]> = { 'pico-w': picoW, 'pico2-w': pico2W };

/** For each I2C bus of board `name`, the GPIOs that can be its SDA, its default first (SCL is the GPIO above); undefined for a board not known. */
export const i2cSdaOf = (name: string): number[][] | undefined => I2C_SDA[name];
