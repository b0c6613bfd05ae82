import type { Filter } from './filter';

/** Exponentially weighted moving average; alpha in (0, 1], 1 = no smoothing. The first value passes as is. */
export function createEwmaFilter(o: { alpha: number }): Filter {
  let mean: number | undefined;
  return {
    push(value) {
      mean = mean === undefined ? value : mean + o.alpha * (value - mean);
      return mean;
    },
  };
}
