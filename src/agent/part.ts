// The agent's own code as one part (src/parts.ts): what only a running agent
// uses (sampler, sensors, filters, assembler, encoders, uplink, the outbox,
// watchdog feeder). In the device bundle it is a function of its own inside the
// resident program, so a board that boots without running the agent (no
// config, safe mode, maintenance) lets it go and gives its heap to the
// console. Modules the rest of the program also uses come from the resident
// program's table (src/shared.ts), never as a second copy.
import { createMemoryOutbox } from '../queue/memory';
import { createOutbox } from '../queue/outbox';
import { createAgent } from './agent';
import { createWatchdogFeeder, watchdogTimeoutMs } from './watchdog';

export interface AgentPart {
  createAgent: typeof createAgent;
  createWatchdogFeeder: typeof createWatchdogFeeder;
  watchdogTimeoutMs: typeof watchdogTimeoutMs;
  createOutbox: typeof createOutbox;
  createMemoryOutbox: typeof createMemoryOutbox;
}

const part: AgentPart = { createAgent, createWatchdogFeeder, watchdogTimeoutMs, createOutbox, createMemoryOutbox };
export default part;
