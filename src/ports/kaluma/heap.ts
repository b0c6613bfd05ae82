// The engine's garbage collection, from JavaScript: the Kaluma ports' own
// (files, sockets, system). Only process.memoryUsage() is used, which the
// host has too, so the ports' host tests run this code as it is.

/**
 * A collection now, from JavaScript, which has no call for it: a fast array
 * whose values cannot fit in the heap makes the engine collect at high
 * pressure (every unreachable object, its 8 and 16 B pools and the property
 * hashmaps), fail, and make a plain empty array instead, with nothing to
 * catch and heapPeak moved only by that array's own few bytes (JerryScript
 * at the commit Kaluma 1.2.1 pins: ecma_op_new_array_object asks
 * jmem_heap_alloc_block_null_on_error).
 * Lengths of 2^17 and up take no values at all, so a heap over 512 KB gets
 * no collection, never an allocation.
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
 * Called where the agent hands the engine work (every file access, every
 * connection): collects when heapUsed is more than a collection step
 * (heapTotal/32) above the live set, which means the engine let a step go
 * by. It skips the collection due at a step when too few objects were made
 * since the last one, and, by its source, when the allocation that reaches
 * the step fills it exactly with a size that is not a multiple of 8 (its
 * check adds the size asked for, its count the size rounded up). Measured
 * with the reference config (LittleFS's block callbacks make two objects
 * each, dozens of collections a second): 1.6 % of the steps passed without
 * a collection although enough objects had been made. Each skip let the
 * heap grow a whole step, and two in a row took a running agent to the 20th
 * step of the Pico W's count (112.5 KB) about once a minute.
 */
export function keepCollecting(): void {
  const m = process.memoryUsage();
  if (!live || m.heapUsed < live) live = m.heapUsed;
  else if (m.heapUsed - live > m.heapTotal >> 5) collect();
}
