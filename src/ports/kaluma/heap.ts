// The engine's garbage collection, from JavaScript (docs/architecture.md, The
// device's heap). Only process.memoryUsage() is used, so host tests run it as is.

/**
 * A collection now: a fast array whose values cannot fit in the heap makes
 * the engine collect at high pressure, then make an empty plain array instead,
 * with nothing to catch. Lengths of 2^17 and up take no values, so a heap over
 * 512 KB gets no collection, never an allocation.
 */
export function collect(): void {
  const n = (process.memoryUsage().heapTotal >> 2) + 1024;
  if (n < 131072) _made = new Array(n).length;
  live = process.memoryUsage().heapUsed;
}

/** heapUsed after the last collection seen: the live set. */
let live = 0;
/** Written so that the array above is made, never read. */
let _made = 0;

/**
 * Called where the agent hands the engine work (file access, connections):
 * collects when heapUsed is more than a collection step (heapTotal/32) above
 * the live set, i.e. when the engine skipped a step, which lets the heap grow
 * a whole step each time.
 */
export function keepCollecting(): void {
  const m = process.memoryUsage();
  if (!live || m.heapUsed < live) live = m.heapUsed;
  else if (m.heapUsed - live > m.heapTotal >> 5) collect();
}
