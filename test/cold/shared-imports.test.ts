// Bindings read from the shared table that nothing uses are dropped
// (scripts/build/shared-imports.ts); the code still does what it did.
import { describe, expect, it } from 'vitest';
import { dropUnusedShared } from '../../scripts/build/shared-imports';

const SAMPLE = `(function(__shared){var a=__shared["lib"],b=a.twice,c=a.thrice,d=a.unused;var e=__shared["other"],f=e.never;var g=1,h=a.half;
function k(x){var c=x;return c}
return {t:b(21),h:h(8),k:k(3),g:g}})`;

/** Runs the function expression with a shared table. */
function run(code: string): unknown {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const make = new Function('return ' + code)() as (shared: unknown) => unknown;
  return make({ lib: { twice: (x: number) => 2 * x, thrice: (x: number) => 3 * x, half: (x: number) => x / 2 }, other: { never: 0 } });
}

describe('unused shared bindings', () => {
  it('drops the bindings nothing reads, and a module object left with none', () => {
    const r = dropUnusedShared(SAMPLE, '__shared');
    expect(r.dropped.sort()).toEqual(['d', 'e', 'f']);
    expect(r.code).not.toMatch(/unused|never|"other"/);
    expect(run(r.code)).toEqual(run(SAMPLE));
  });

  it('keeps a binding whose name a nested scope also declares (counted as used: never dropped wrongly)', () => {
    const r = dropUnusedShared(SAMPLE, '__shared');
    // c is read nowhere at the top level, but k declares a c of its own.
    expect(r.code).toContain('c=a.thrice');
    expect(r.code).toContain('g=1');
  });

  it('drops a name read straight from the table when nothing reads it', () => {
    const code = '(function(__shared){var a=__shared["lib"].twice,b=__shared["lib"].half;return a(2)})';
    const r = dropUnusedShared(code, '__shared');
    expect(r.dropped).toEqual(['b']);
    expect(run(r.code)).toBe(4);
  });

  it('leaves code without shared reads as it is', () => {
    const code = '(function(__shared){var x=1;return x})';
    expect(dropUnusedShared(code, '__shared')).toEqual({ code, dropped: [] });
  });
});
