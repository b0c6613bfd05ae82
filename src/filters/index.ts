import type { FilterSpec } from '../config/types';
import { createAverageFilter } from './average';
import { createClampFilter } from './clamp';
import { createDeltaFilter } from './delta';
import { createEwmaFilter } from './ewma';
import type { Filter } from './filter';
import { createMedianFilter } from './median';
import { createThrottleFilter } from './throttle';

export type { Filter } from './filter';

export function createFilter(spec: FilterSpec): Filter {
  switch (spec.type) {
    case 'average':
      return createAverageFilter(spec);
    case 'median':
      return createMedianFilter(spec);
    case 'ewma':
      return createEwmaFilter(spec);
    case 'clamp':
      return createClampFilter(spec);
    case 'delta':
      return createDeltaFilter(spec);
    case 'throttle':
      return createThrottleFilter(spec);
  }
}

/** The specs in order; a drop stops the chain, so later steps never see that value. */
export function createChain(specs: FilterSpec[]): Filter {
  const steps = specs.map(createFilter);
  return {
    push(value, atMs) {
      let v: number | undefined = value;
      for (const step of steps) {
        v = step.push(v, atMs);
        if (v === undefined) return undefined;
      }
      return v;
    },
  };
}
