// BH1750 (0x23/0x5C): power on, one-time high-resolution mode (the chip
// powers down again after it), at most 180 ms, two bytes; lux = count / 1.2
// (the datasheet's measurement accuracy at the default sensitivity).
import type { I2cTransfers } from '../../../ports/ports';
import type { Driver, DriverInit, DriverSteps } from '../driver';
import { transfer } from '../transfer';

/** Nothing to ready: a missing chip shows at the first start (the cold module 'bh1750-init'). */
export const init: DriverInit = () => [];

function start_(bus: I2cTransfers, addr: number): number | string {
  const w = transfer(bus, addr, 'powering on', [0x01], 0) || transfer(bus, addr, 'starting a measurement', [0x20], 0);
  return w === undefined ? 180 : w;
}

function read_(bus: I2cTransfers, addr: number): number[] | string {
  const b = transfer(bus, addr, 'reading the measurement', undefined, 2);
  if (typeof b === 'string') return b;
  const count = (b[0]! << 8) | b[1]!;
  // All ones is where the count stops: the light may be anything above it.
  return count === 0xffff ? 'out of range (saturated)' : [count / 1.2];
}

/** A sample's steps: the cold module 'bh1750'. */
export const steps: DriverSteps = { start_, read_ };

export const driver: Driver = { init_: init, start_, read_ };
