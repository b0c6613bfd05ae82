// The agent on the fake clock for the benchmark: the test platform (simulated
// pins and Wi-Fi), an outbox on the in-memory file store, and either the
// scripted sockets under the real service and HTTP clients or a scripted
// writer in their place.
import { createAgent } from '../../../src/agent/agent';
import type { Agent } from '../../../src/agent/agent';
import type { Writer } from '../../../src/agent/uplink';
import type { AgentConfig } from '../../../src/config/types';
import { createOutbox } from '../../../src/queue/outbox';
import { testConfig } from '../../../test/fakes/config';
import { createMemoryFileStore } from '../../../test/fakes/files';
import { createTestPlatform } from '../../../test/fakes/platform';
import type { TestPlatform } from '../../../test/fakes/platform';
import { createFakeTime } from '../../../test/fakes/time';
import type { FakeTime } from '../../../test/fakes/time';
import { API_KEY, BASE, scriptedSockets } from './wire';
import type { ScriptedSockets } from './wire';

export interface SimAgent {
  agent: Agent;
  p: TestPlatform;
  time: FakeTime;
  net: ScriptedSockets;
  /** Moves simulated time, letting every request finish between timers. */
  advance(ms: number): Promise<void>;
}

/** The test configuration (three sensors; a Value, a JSON and an XML device) at one sampling period. */
export function benchConfig(intervalMs: number, radioOff = false): AgentConfig {
  const c = testConfig(BASE);
  c.service.apiKey = API_KEY;
  for (const s of c.sensors) s.intervalMs = intervalMs;
  c.agent.radioOffBetweenUploads = radioOff;
  return c;
}

/**
 * One macrotask turn drains every pending promise callback: the scripted
 * sockets, the fake Wi-Fi and the fake timers all answer through promises, so
 * after it each started request has completed before the clock moves on.
 */
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

export function startAgent(config: AgentConfig, writer?: Writer): SimAgent {
  const time = createFakeTime();
  const p = createTestPlatform({ time });
  p.log = { info: () => undefined, error: () => undefined };
  const net = scriptedSockets({ keep: false });
  p.sockets = net.sockets;
  const queue = createOutbox({ files: createMemoryFileStore(), dir: 'q', maxBytes: config.agent.outboxBytes });
  if (!queue) throw new Error('outbox could not open');
  const made = createAgent({ p, config, queue, bootId: 1, writer });
  if (!made.ok) throw new Error(made.error);
  made.agent.start();
  return { agent: made.agent, p, time, net, advance: (ms) => time.advance(ms, turn) };
}
