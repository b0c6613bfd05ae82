// Parts: resident code not every boot needs. On the device each is a function
// expression holding its modules, whose bytecode the engine frees once nothing
// refers to it (only its names stay). A boot without the agent lets its part
// go and gives the console that heap; the agent then takes a restart.
import type { AgentPart } from './agent/part';
import { FREES, TABLE } from './parts/table';
import { sharedTable } from './shared';

let agent: AgentPart | undefined;

/**
 * The agent's code: undefined once let go (the board must restart to run the
 * agent). `release` lets it go where that frees it (the device); on the host
 * it stays. One function for both: each costs heap for good.
 */
export function agentPart(release?: boolean): AgentPart | undefined {
  const make = TABLE.agent;
  if (release) {
    if (FREES) agent = TABLE.agent = undefined;
  } else if (!agent && make) {
    agent = make(sharedTable());
    // The function's own code (its modules' start-up) is not needed again.
    if (FREES) TABLE.agent = undefined;
  }
  return agent;
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
