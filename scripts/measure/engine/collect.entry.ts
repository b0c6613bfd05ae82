// Runs on the device's engine: the Kaluma ports' collection from
// JavaScript (collect(), kalumaSystem.collect) and its guard (keepCollecting) against
// garbage the engine's own rule leaves: few objects holding many bytes, which
// carry the heap past its collection steps without a collection.
import { collect, keepCollecting } from '../../../src/ports/kaluma/heap';

declare function print(s: string): void;
declare const process: { memoryUsage(): { heapTotal: number; heapUsed: number; heapPeak: number } };

const mem = (): { heapTotal: number; heapUsed: number; heapPeak: number } => process.memoryUsage();
const keep: object[] = [];
// A live set of many small objects, as the agent's.
for (let i = 0; i < 400; i++) keep.push({ i, s: 'k' + i });
collect();
const live = mem().heapUsed;

/** Garbage of `n` objects holding `bytes` each: too few objects for the engine's rule. */
function bulky(n: number, bytes: number): void {
  for (let i = 0; i < n; i++) {
    const b = new Uint8Array(bytes);
    if (b.length < 0) keep.push(b);
  }
}

// 1. A collection asked for: the garbage goes, heapPeak does not move.
bulky(4, 2000);
const before = mem();
collect();
const after = mem();
print('@COLLECT ' + JSON.stringify({ live, before: before.heapUsed, after: after.heapUsed, peakBefore: before.heapPeak, peakAfter: after.heapPeak }) + '\n');

// 2. Bulky garbage past several steps, with and without the guard between pieces.
const step = mem().heapTotal >> 5;
function climb(guard: boolean): number {
  let top = 0;
  for (let i = 0; i < 24; i++) {
    bulky(1, 2000);
    if (guard) keepCollecting();
    const u = mem().heapUsed;
    if (u > top) top = u;
  }
  collect();
  return top - mem().heapUsed;
}
const without = climb(false);
const withGuard = climb(true);
print('@GUARD ' + JSON.stringify({ step, without, withGuard }) + '\n');
print('@DONE\n');
