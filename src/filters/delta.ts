import type { Filter } from './filter';

/**
 * Passes a value only when it moved at least `threshold` from the last value
 * passed, or when `heartbeatMs` went by since then, so the service still hears
 * from a steady sensor. heartbeatMs <= 0 turns the heartbeat off. The first
 * value always passes.
 */
export function createDeltaFilter(o: { threshold: number; heartbeatMs: number }): Filter {
  let last: number | undefined;
  let lastAtMs = 0;
  return {
    push(value, atMs) {
      if (
        last !== undefined &&
        Math.abs(value - last) < o.threshold &&
        !(o.heartbeatMs > 0 && atMs - lastAtMs >= o.heartbeatMs)
      ) {
        return undefined;
      }
      last = value;
      lastAtMs = atMs;
      return value;
    },
  };
}
