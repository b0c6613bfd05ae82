import { describe, expect, it } from 'vitest';
import { createWindow } from '../../src/filters/window';

describe('window', () => {
  it('holds at most size values: the latest ones', () => {
    const w = createWindow(3);
    let held: number[] = [];
    for (let i = 1; i <= 100; i++) held = w.push(i);
    expect(held.length).toBe(3);
    expect([...held].sort((a, b) => a - b)).toEqual([98, 99, 100]);
  });

  it('grows one by one until full', () => {
    const w = createWindow(3);
    expect(w.push(7).length).toBe(1);
    expect(w.push(8).length).toBe(2);
    expect(w.push(9).length).toBe(3);
    expect(w.push(10).length).toBe(3);
  });

  it('a size below 1 holds one value; a fractional size is rounded down', () => {
    const zero = createWindow(0);
    zero.push(1);
    expect(zero.push(2)).toEqual([2]);
    const frac = createWindow(2.7);
    frac.push(1);
    frac.push(2);
    expect([...frac.push(3)].sort()).toEqual([2, 3]);
  });
});
