// The shape every I2C sensor kind has (one file each under drivers/): a
// function that readies the chip and hands back its two steps. The glue
// (sensors.ts) owns timers, retries, counting and logging; a driver only
// talks to the chip and does its datasheet's arithmetic.
import type { I2cBus } from '../../ports/ports';

export interface Chip {
  /** Said once when the chip is readied: what it is when it measures less than its kind (a BMP280 on a bme280 sensor). */
  note_?: string;
  /** Starts one conversion: the milliseconds to wait before read_(), or why it could not. */
  start_(): number | string;
  /**
   * The conversion's values, one per quantity of the kind, in the kinds
   * table's order (NaN for a quantity this chip has not), or why there are none.
   */
  read_(): number[] | string;
}

/** Readies the chip at `addr` (its id checked, its trimming read, its settings written): the chip, or why not. */
export type Driver = (bus: I2cBus, addr: number) => Chip | string;
