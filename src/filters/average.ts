import type { Filter } from './filter';
import { createWindow } from './window';

/**
 * Moving average of the last `window` values. It emits from the first value,
 * averaging what it has: with minute-long intervals, waiting for a full window
 * would mean minutes of silence after every boot.
 */
export function createAverageFilter(o: { window: number }): Filter {
  const win = createWindow(o.window);
  return {
    push(value) {
      const values = win.push(value);
      let sum = 0;
      for (const v of values) sum += v;
      return sum / values.length;
    },
  };
}
