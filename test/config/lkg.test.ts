import { describe, expect, it } from 'vitest';
import { revertDue } from '../../src/config/lkg';

describe('last-known-good rule', () => {
  it('does not revert a config that was never changed, or whose change delivered', () => {
    expect(revertDue(undefined, 1000, 1e9)).toBe(false);
  });

  it('reverts once revertAfterMs passed since a change that has delivered nothing', () => {
    expect(revertDue(5000, 1000, 5999)).toBe(false);
    expect(revertDue(5000, 1000, 6000)).toBe(true);
    expect(revertDue(5000, 1000, 1e9)).toBe(true);
  });

  it('never reverts when revertAfterMs is 0', () => {
    expect(revertDue(0, 0, 0)).toBe(false);
    expect(revertDue(0, 0, 1e9)).toBe(false);
  });
});
