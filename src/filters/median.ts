import type { Filter } from './filter';
import { createWindow } from './window';

/**
 * Median of the last `window` values (mean of the middle two for an even
 * count). Like the average, it emits from the first value.
 */
export function createMedianFilter(o: { window: number }): Filter {
  const win = createWindow(o.window);
  return {
    push(value) {
      const sorted = win.push(value).slice().sort((a, b) => a - b);
      const mid = sorted.length >> 1;
      const upper = sorted[mid] as number;
      return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] as number) + upper) / 2;
    },
  };
}
