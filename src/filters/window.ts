/**
 * The last `size` values pushed, fewer until that many arrived, in no
 * particular order. Memory is fixed at `size` numbers (at least 1).
 */
export function createWindow(size: number): { push(value: number): number[] } {
  const n = size >= 1 ? Math.floor(size) : 1;
  const values: number[] = [];
  let next = 0;
  return {
    push(value) {
      if (values.length < n) values.push(value);
      else values[next] = value;
      next = (next + 1) % n;
      return values;
    },
  };
}
