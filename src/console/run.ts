// The one export of a cold console module: run a named command of its
// table on the runtime, and hand back what the command returned.
import type { Runtime } from '../runtime';
import type { Commands, Ctx } from './shared';
import { context } from './shared';

export type ColdCommands = (rt: Runtime, name: string, args: unknown[]) => unknown;

export function run(table: (c: Ctx) => Commands): ColdCommands {
  return (rt, name, args) => {
    const cmd = table(context(rt))[name];
    return cmd ? cmd(...args) : undefined;
  };
}
