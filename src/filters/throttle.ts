import type { Filter } from './filter';

/** At most one value per minIntervalMs; the first value passes. */
export function createThrottleFilter(o: { minIntervalMs: number }): Filter {
  let lastAtMs: number | undefined;
  return {
    push(value, atMs) {
      if (lastAtMs !== undefined && atMs - lastAtMs < o.minIntervalMs) return undefined;
      lastAtMs = atMs;
      return value;
    },
  };
}
