// The live set on the device's engine, for programs that run there: allocate
// small garbage until heapUsed drops (a collection ran) and read it right
// after the drop. -1 when none came within the bound.
declare function print(s: string): void;
declare const process: { memoryUsage(): { heapUsed: number } };

export const used = (): number => process.memoryUsage().heapUsed;

export function floor(): number {
  let last = used();
  for (let i = 0; i < 40000; i++) {
    const g = [i, i];
    if (g[0] !== i) print('');
    const u = used();
    if (u < last) return u;
    last = u;
  }
  return -1;
}
