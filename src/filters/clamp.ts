import type { Filter } from './filter';

/** Drops values outside [min, max]: a reading out of the physical range is a fault, not an extreme. */
export function createClampFilter(o: { min: number; max: number }): Filter {
  return {
    push: (value) => (value >= o.min && value <= o.max ? value : undefined),
  };
}
