// A driver (src/sensors/i2c/driver.ts) run as the glue runs it, for tests
// that read simulated chips through one: readied once, then each sample a
// start, the driver's wait on the test's clock, and a read.
import type { I2cBus } from '../../src/ports/ports';
import type { Driver } from '../../src/sensors/i2c/driver';

export interface Sampled {
  /** What the driver said the chip is, when it measures less than its kind. */
  note?: string;
  sample(): number[] | string;
}

/** The driver readied on the chip at `addr` (or why not); `wait` lets the clock run for the driver's wait. */
export function readied(d: Driver, bus: I2cBus, addr: number, wait: (ms: number) => void): Sampled | string {
  const out: Sampled = { sample: () => 'not readied' };
  const st = d.init_(bus, addr, (what) => (out.note = what));
  if (typeof st === 'string') return st;
  out.sample = () => {
    const ms = d.start_(bus, addr, st);
    if (typeof ms === 'string') return ms;
    wait(ms);
    return d.read_(bus, addr, st);
  };
  return out;
}
