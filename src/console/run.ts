// The one export of a cold console module: run a named command of its
// table on the runtime, and hand back what the command returned.
import type { Runtime } from '../runtime';
import type { Commands, ConsoleRt, Ctx } from './shared';
import { context } from './shared';

/** What the console's stand-ins call (src/console/stubs.ts): they hand over the whole runtime. */
export type ColdCommands = (rt: Runtime, name: string, args: unknown[]) => unknown;

/** The table reaches only what its context names (`R`), a part of the runtime. */
export function run<R extends ConsoleRt>(table: (c: Ctx<R>) => Commands): (rt: R, name: string, args: unknown[]) => unknown {
  return (rt, name, args) => {
    const cmd = table(context(rt))[name];
    return cmd ? cmd(...args) : undefined;
  };
}
