// The filters (filter.ts). One function, shared by every chain, runs every kind
// over a plain state object per step: a factory and a closure per kind would
// cost more heap than the steps do.
import type { FilterSpec } from '../config/types';
import type { Filter } from './filter';

export type { Filter } from './filter';

// Properties ending in '_' get short names in the device build (scripts/build/mangle.ts).
interface Step {
  spec_: FilterSpec;
  /** average, median: the last `size_` values pushed, in ring order; `next_` is the next slot. */
  window_: number[];
  size_: number;
  next_: number;
  /** median: the window sorted, reused at every push. */
  sorted_: number[];
  /** ewma: the mean; delta: the last value passed. */
  last_: number | undefined;
  /** delta, throttle: when the last value passed. */
  passedAt_: number | undefined;
}

export function createFilter(spec: FilterSpec): Filter {
  return createChain([spec]);
}

/**
 * The specs in order; a drop stops the chain, so later steps never see that value.
 *
 * average, median: of the last `window` values (at least 1), emitted from the
 * first value on: with minute-long intervals, waiting for a full window would
 * mean minutes of silence after every boot. The median of an even count is
 * the mean of the middle two.
 * ewma: alpha in (0, 1], 1 = no smoothing; the first value passes as is.
 * clamp: drops values outside [min, max]: a reading out of the physical range
 * is a fault, not an extreme.
 * delta: passes a value only when it moved at least `threshold` from the last
 * value passed, or when `heartbeatMs` (<= 0: never) went by since then, so the
 * service still hears from a steady sensor. The first value passes.
 * throttle: at most one value per minIntervalMs; the first value passes.
 */
export function createChain(specs: FilterSpec[]): Filter {
  // Chains without steps hold no state: one serves them all.
  if (!specs.length) return none || (none = { push, steps_: [] });
  const steps: Step[] = [];
  for (const s of specs) {
    const n = s.type === 'average' || s.type === 'median' ? (s.window >= 1 ? Math.floor(s.window) : 1) : 0;
    steps.push({ spec_: s, window_: [], size_: n, next_: 0, sorted_: [], last_: undefined, passedAt_: undefined });
  }
  const chain: Chain = { push, steps_: steps };
  return chain;
}

interface Chain extends Filter {
  steps_: Step[];
}

let none: Chain | undefined;

function push(this: Chain, value: number, atMs: number): number | undefined {
  let v = value;
  for (const st of this.steps_) {
    const s = st.spec_;
    if (s.type === 'average' || s.type === 'median') {
      const w = st.window_;
      if (w.length < st.size_) w.push(v);
      else w[st.next_] = v;
      st.next_ = (st.next_ + 1) % st.size_;
      const len = w.length;
      if (s.type === 'average') {
        v = 0;
        for (let i = 0; i < len; i++) v += w[i]!;
        v /= len;
      } else {
        // Insertion sort into the step's own array: no copy, no comparator per push.
        const m = st.sorted_;
        for (let i = 0; i < len; i++) {
          const x = w[i]!;
          let j = i;
          for (; j > 0 && m[j - 1]! - x > 0; j--) m[j] = m[j - 1]!;
          m[j] = x;
        }
        const mid = len >> 1;
        v = len % 2 === 1 ? m[mid]! : (m[mid - 1]! + m[mid]!) / 2;
      }
    } else if (s.type === 'ewma') {
      v = st.last_ = st.last_ === undefined ? v : st.last_ + s.alpha * (v - st.last_);
    } else if (s.type === 'clamp') {
      if (!(v >= s.min && v <= s.max)) return undefined;
    } else if (s.type === 'delta') {
      if (st.last_ !== undefined && Math.abs(v - st.last_) < s.threshold && !(s.heartbeatMs > 0 && atMs - st.passedAt_! >= s.heartbeatMs)) {
        return undefined;
      }
      st.last_ = v;
      st.passedAt_ = atMs;
    } else {
      if (st.passedAt_ !== undefined && atMs - st.passedAt_ < s.minIntervalMs) return undefined;
      st.passedAt_ = atMs;
    }
  }
  return v;
}
