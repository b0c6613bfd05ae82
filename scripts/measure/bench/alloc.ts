// Allocation per operation on the host: short windows right after a full
// collection, kept only when no collection started inside them, so the growth
// of heapUsed is what the operation allocated (garbage included).
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function getGc(): (() => void) | undefined {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return g;
  try {
    // Without --expose-gc: switch the flag on and take gc from a fresh context.
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}

export interface Alloc {
  /** JS heap bytes per operation (median of the clean windows). */
  heap: number;
  /** ArrayBuffer backing-store bytes per operation. */
  buffers: number;
  windows: number;
}

const median = (a: number[]): number => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] ?? NaN;

/** Runs `run(per)` in `count` windows; `run` performs `per` operations. */
export async function allocPerOp(gc: () => void, run: (per: number) => Promise<void>, per: number, count = 15): Promise<Alloc> {
  const gcAt: number[] = [];
  const obs = new PerformanceObserver((l) => {
    for (const e of l.getEntries()) gcAt.push(e.startTime);
  });
  obs.observe({ entryTypes: ['gc'] });
  const windows: { t0: number; t1: number; heap: number; buffers: number }[] = [];
  for (let w = 0; w < count; w++) {
    gc();
    const m0 = process.memoryUsage();
    const t0 = performance.now();
    await run(per);
    const t1 = performance.now();
    const m1 = process.memoryUsage();
    windows.push({ t0, t1, heap: (m1.heapUsed - m0.heapUsed) / per, buffers: (m1.arrayBuffers - m0.arrayBuffers) / per });
  }
  // GC entries reach the observer only after a timer turn.
  await new Promise((r) => setTimeout(r, 20));
  obs.disconnect();
  const clean = windows.filter((w) => !gcAt.some((t) => t >= w.t0 && t <= w.t1));
  return { heap: median(clean.map((w) => w.heap)), buffers: median(clean.map((w) => w.buffers)), windows: clean.length };
}
