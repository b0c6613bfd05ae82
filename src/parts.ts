// Parts: code of the resident program that not every boot needs. On the
// device each is a function expression holding its modules (scripts/build.ts):
// parsed at boot with the rest, but once nothing refers to that function any
// more, the engine frees its bytecode (measured on the device's engine: a
// dropped function's code goes back to the heap, only its names stay in the
// literal storage). So a boot that does not run the agent lets its part go,
// and the console gets that heap; running the agent later takes a restart.
import type { PartTable } from './parts/table';
import { FREES, TABLE } from './parts/table';
import { sharedTable } from './shared';

type Made = { [N in keyof PartTable]?: ReturnType<NonNullable<PartTable[N]>> };
const made: Made = {};

/**
 * A part's code (its default export): undefined once let go (the board must
 * restart to run it again). `release` lets it go where that frees it (the
 * device); on the host it stays. One function for every part: each costs
 * heap for good.
 */
export function part<N extends keyof PartTable>(name: N, release?: boolean): Made[N] {
  const make = TABLE[name];
  if (release) {
    if (FREES) made[name] = TABLE[name] = undefined;
  } else if (!made[name] && make) {
    made[name] = make(sharedTable());
    // The function's own code (its modules' start-up) is not needed again.
    if (FREES) TABLE[name] = undefined;
  }
  return made[name];
}

/**
 * Functions of `o` (the agent part, or an object the boot made) that this
 * boot will not call again: let go where that frees their own code (the
 * device), while what they made keeps the code it runs. On the host the
 * agent part is one object for every boot, so nothing is let go there.
 */
export function spent<T extends object>(o: T | undefined, names: (keyof T)[]): void {
  if (!FREES || !o) return;
  const a = o as unknown as Record<string, unknown>;
  for (let i = 0; i < names.length; i++) a[names[i] as string] = undefined;
}
