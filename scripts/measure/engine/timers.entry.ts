// Runs on the device's engine: what a pending timer costs on the heap through
// the Kaluma timers port and through Kaluma's setTimeout, and the port under
// the pattern that breaks Kaluma's loop (a timer cleared from its own
// callback, re-armed at once) for ROUNDS rounds.
import { kalumaTimers } from '../../../src/ports/kaluma/time';

declare function print(s: string): void;
declare function setTimeout(cb: () => void, ms: number): number;
declare function clearTimeout(id: number): void;
declare const process: { memoryUsage(): { heapUsed: number; heapPeak: number } };

const N = 100;
const ROUNDS = 3000;
const used = (): number => process.memoryUsage().heapUsed;
const noop = (): void => undefined;
const keep: unknown[] = [];

// The live set, as the engine sees it after a collection: garbage is
// collected every ~5.7 KB of growth, so allocate ~20 KB of small garbage and
// keep the lowest heapUsed seen (right after a collection). JS heap only: a
// Kaluma timer's handle is in the C heap (malloc), which JS cannot see.
function floor(): number {
  let low = Infinity;
  for (let i = 0; i < 800; i++) {
    const g = { i, j: i };
    if (g.i < 0) keep.push(g);
    const u = used();
    if (u < low) low = u;
  }
  return low;
}
function perTimer(arm: () => unknown): number {
  const before = floor();
  for (let i = 0; i < 5 * N; i++) keep.push(arm());
  return Math.round((floor() - before) / (5 * N));
}
// keep grows by 5 * N slots either way; its cost is in both figures.
const kaluma = perTimer(() => setTimeout(noop, 3600000));
const port = perTimer(() => kalumaTimers.setTimeout(noop, 3600000));
print('@COST ' + JSON.stringify({ perKalumaTimer: kaluma, perPortTimer: port, note: 'JS heap B per pending timer, incl. one array slot of the harness' }) + '\n');
// Clear what was armed (none has fired: clearing those is safe), so the program ends by itself.
for (let i = 0; i < 5 * N; i++) clearTimeout(keep[i] as number);
for (let i = 5 * N; i < 10 * N; i++) kalumaTimers.clearTimeout(keep[i] as object);

let n = 0;
const start = used();
function round(): void {
  const id = kalumaTimers.setTimeout(() => {
    kalumaTimers.clearTimeout(id);
    n++;
    if (n % 1000 === 0) print('@ROUND ' + n + ' used=' + used() + '\n');
    if (n < ROUNDS) round();
    else print('@DONE ' + n + ' rounds, heapUsed ' + start + ' -> ' + used() + ', peak ' + process.memoryUsage().heapPeak + '\n');
  }, 0);
}
round();
