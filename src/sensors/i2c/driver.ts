// The shape every I2C sensor kind has (one file each under drivers/): three
// steps over a bus, each run by code loaded for it and let go after (the
// glue, sensors.ts, loads a driver for each step), so what a chip must keep
// between steps is plain numbers the glue holds: its state. The glue owns
// timers, retries, counting and logging; a driver only talks to the chip and
// does its datasheet's arithmetic.
import type { I2cTransfers } from '../../ports/ports';

/**
 * Readies the chip at `addr` (its id checked, its trimming read, its
 * settings written): its state, or why not. `note` is told, once, what the
 * chip is when it measures less than its kind (a BMP280 on a bme280 sensor).
 */
export type DriverInit = (bus: I2cTransfers, addr: number, note: (what: string) => void) => number[] | string;

/** What each sample's steps use: the cold module of the kind's name. */
export interface DriverSteps {
  /** Starts one conversion: the milliseconds to wait before read_(), or why it could not. */
  start_(bus: I2cTransfers, addr: number, st: number[]): number | string;
  /**
   * The conversion's values, one per quantity of the kind, in the kinds
   * table's order (NaN for a quantity this chip has not), or why there are none.
   */
  read_(bus: I2cTransfers, addr: number, st: number[]): number[] | string;
}

/**
 * A whole driver, as tests and the host's simulated board use it. A driver
 * file exports `init` (the cold module '<kind>-init', loaded only to ready
 * a part), `steps` (the cold module '<kind>', loaded at each step) and
 * `driver`, both together: a step's module then carries no readying code.
 */
export interface Driver extends DriverSteps {
  init_: DriverInit;
}
