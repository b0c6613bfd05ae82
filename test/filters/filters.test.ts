import { describe, expect, it } from 'vitest';
import type { FilterSpec } from '../../src/config/types';
import { createChain, createFilter, type Filter } from '../../src/filters/index';

/** Pushes [value, atMs] pairs (atMs defaults to the index) and collects the outputs. */
function run(f: Filter, input: Array<number | [number, number]>): Array<number | undefined> {
  return input.map((x, i) => (Array.isArray(x) ? f.push(x[0], x[1]) : f.push(x, i)));
}

describe('average', () => {
  it('emits from the first value, then the mean of the last N', () => {
    const f = createFilter({ type: 'average', window: 3 });
    expect(run(f, [3, 6, 9, 12, 0, -3])).toEqual([3, 4.5, 6, 9, 7, 3]);
  });

  it('window 1 passes values through', () => {
    expect(run(createFilter({ type: 'average', window: 1 }), [5, -2, 7])).toEqual([5, -2, 7]);
  });
});

describe('median', () => {
  it('odd window: middle value; before the window is full an even count averages the middle two', () => {
    const f = createFilter({ type: 'median', window: 3 });
    expect(run(f, [5, 1, 9, 2, 100, 3])).toEqual([5, 3, 5, 2, 9, 3]);
  });

  it('even window: mean of the middle two, which ignores a single spike', () => {
    const f = createFilter({ type: 'median', window: 4 });
    expect(run(f, [10, 12, 11, 500, 13])).toEqual([10, 11, 11, 11.5, 12.5]);
  });
});

describe('ewma', () => {
  it('the first value passes, then each step moves alpha of the way', () => {
    expect(run(createFilter({ type: 'ewma', alpha: 0.25 }), [0, 8, 8, 0])).toEqual([0, 2, 3.5, 2.625]);
    expect(run(createFilter({ type: 'ewma', alpha: 0.5 }), [8, 0, 4, 4])).toEqual([8, 4, 4, 4]);
  });

  it('alpha 1 does not smooth', () => {
    expect(run(createFilter({ type: 'ewma', alpha: 1 }), [1, 9, -3])).toEqual([1, 9, -3]);
  });
});

describe('clamp', () => {
  it('drops values outside [min, max] and keeps the bounds', () => {
    const f = createFilter({ type: 'clamp', min: 0, max: 10 });
    expect(run(f, [-1, 0, 5, 10, 10.5, NaN, 3])).toEqual([undefined, 0, 5, 10, undefined, undefined, 3]);
  });
});

describe('delta', () => {
  it('passes the first value, moves of at least threshold, and a heartbeat', () => {
    const f = createFilter({ type: 'delta', threshold: 1, heartbeatMs: 1000 });
    expect(
      run(f, [
        [10, 0],
        [10.5, 100],
        [11, 200], // moved exactly the threshold
        [11.9, 300],
        [10.5, 400],
        [10.5, 1199],
        [10.5, 1200], // 1000 ms since the last pass at 200
        [10.6, 1300],
        [9.5, 1400], // a fall counts too
      ]),
    ).toEqual([10, undefined, 11, undefined, undefined, undefined, 10.5, undefined, 9.5]);
  });

  it('measures against the last value passed, so slow drift still gets through', () => {
    const f = createFilter({ type: 'delta', threshold: 1, heartbeatMs: 0 });
    expect(run(f, [0, 0.6, 1.2, 1.8, 2.4])).toEqual([0, undefined, 1.2, undefined, 2.4]);
  });

  it('heartbeatMs 0 means no heartbeat', () => {
    const f = createFilter({ type: 'delta', threshold: 5, heartbeatMs: 0 });
    expect(run(f, [[1, 0], [1, 1e6], [1, 1e9]])).toEqual([1, undefined, undefined]);
  });
});

describe('throttle', () => {
  it('passes at most one value per minIntervalMs, counted from the last pass', () => {
    const f = createFilter({ type: 'throttle', minIntervalMs: 1000 });
    expect(
      run(f, [
        [1, 0],
        [2, 500],
        [3, 999],
        [4, 1000],
        [5, 1999],
        [6, 2500],
      ]),
    ).toEqual([1, undefined, undefined, 4, undefined, 6]);
  });
});

describe('chain', () => {
  const clamp: FilterSpec = { type: 'clamp', min: 0, max: 10 };
  const average: FilterSpec = { type: 'average', window: 2 };

  it('order matters: clamp then average drops the spike before it is averaged', () => {
    expect(run(createChain([clamp, average]), [4, 20, 8])).toEqual([4, undefined, 6]);
  });

  it('order matters: average then clamp lets the spike poison the window', () => {
    expect(run(createChain([average, clamp]), [4, 20, 8, 8])).toEqual([4, undefined, undefined, 8]);
  });

  it('a drop stops the chain: later steps never see the dropped value', () => {
    const chain = createChain([clamp, { type: 'throttle', minIntervalMs: 100 }]);
    // Had the throttle seen 20 at 0 ms, it would drop 5 at 10 ms.
    expect(run(chain, [[20, 0], [5, 10], [6, 50], [7, 110]])).toEqual([undefined, 5, undefined, 7]);
  });

  it('an empty chain passes values through', () => {
    expect(run(createChain([]), [1, -2.5])).toEqual([1, -2.5]);
  });

  it('each chain keeps its own state', () => {
    const a = createChain([average]);
    const b = createChain([average]);
    a.push(10, 0);
    expect(b.push(2, 0)).toBe(2);
    expect(a.push(2, 1)).toBe(6);
  });
});

describe('window (average, median)', () => {
  it('holds at most window values: the latest ones', () => {
    const f = createFilter({ type: 'median', window: 3 });
    let out: number | undefined;
    for (let i = 1; i <= 100; i++) out = f.push(i, i);
    expect(out).toBe(99);
    const a = createFilter({ type: 'average', window: 3 });
    for (let i = 1; i <= 100; i++) out = a.push(i, i);
    expect(out).toBe(99);
  });

  it('grows one by one until full', () => {
    expect(run(createFilter({ type: 'average', window: 3 }), [7, 8, 9, 10])).toEqual([7, 7.5, 8, 9]);
  });

  it('a window below 1 holds one value; a fractional window is rounded down', () => {
    expect(run(createFilter({ type: 'average', window: 0 }), [1, 2])).toEqual([1, 2]);
    expect(run(createFilter({ type: 'average', window: 2.7 }), [1, 2, 3])).toEqual([1, 1.5, 2.5]);
  });
});
