// The parts (src/parts.ts) as the host runs them: plain imports. The device
// build puts in its place each part as a function expression (scripts/build/build.ts).
import type { AgentPart } from '../agent/part';
import agent from '../agent/part';
import type { Shared } from '../shared';

export const TABLE: { agent?: (shared: Shared) => AgentPart } = { agent: () => agent };
/** True where letting a part go frees its code (the device bundle). */
export const FREES = false;
