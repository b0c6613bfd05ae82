// The parts of the program (see src/parts.ts) as the host runs them: plain
// imports, kept for good. The device build puts another module in place of
// this one (scripts/build/build.ts, partsPlugin): each part as a function
// expression of its own code, taking the resident program's shared table.
import type { AgentPart } from '../agent/part';
import agent from '../agent/part';
import type { Shared } from '../shared';

export const TABLE: { agent?: (shared: Shared) => AgentPart } = { agent: () => agent };
/** True where letting a part go frees its code (the device bundle). */
export const FREES = false;
