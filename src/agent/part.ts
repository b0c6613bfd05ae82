// What only a running agent uses, as one part (src/parts.ts): a board that
// boots without the agent (no config, safe mode, maintenance) lets it go and
// gives its heap to the console.
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
