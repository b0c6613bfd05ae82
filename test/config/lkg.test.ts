import { describe, expect, it } from 'vitest';
import { createLkgWatch } from '../../src/config/lkg';

describe('last-known-good watch', () => {
  it('does not revert a config that was never changed', () => {
    const w = createLkgWatch({ revertAfterMs: 1000 });
    expect(w.shouldRevert(1e9)).toBe(false);
  });

  it('reverts once revertAfterMs passed without a delivery since the change', () => {
    const w = createLkgWatch({ revertAfterMs: 1000 });
    w.configChanged(5000);
    expect(w.shouldRevert(5999)).toBe(false);
    expect(w.shouldRevert(6000)).toBe(true);
  });

  it('never reverts a change that delivered once', () => {
    const w = createLkgWatch({ revertAfterMs: 1000 });
    w.configChanged(5000);
    w.delivered(5500);
    expect(w.shouldRevert(6000)).toBe(false);
    expect(w.shouldRevert(1e9)).toBe(false);
  });

  it('does not count a delivery from before the change', () => {
    const w = createLkgWatch({ revertAfterMs: 1000 });
    w.configChanged(5000);
    w.delivered(4999);
    expect(w.shouldRevert(6000)).toBe(true);
  });

  it('starts over on a new change', () => {
    const w = createLkgWatch({ revertAfterMs: 1000 });
    w.configChanged(0);
    w.delivered(10);
    w.configChanged(2000);
    expect(w.shouldRevert(2999)).toBe(false);
    expect(w.shouldRevert(3000)).toBe(true);
  });

  it('never reverts when revertAfterMs is 0', () => {
    const w = createLkgWatch({ revertAfterMs: 0 });
    w.configChanged(0);
    expect(w.shouldRevert(0)).toBe(false);
    expect(w.shouldRevert(1e9)).toBe(false);
  });
});
