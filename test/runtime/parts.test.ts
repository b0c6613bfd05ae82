// The agent's part as the device build makes it (src/parts/table.ts replaced:
// a function that makes the part, and FREES true): the factories a boot calls
// once (the outbox's, the watchdog feeder's), and the config store's load(),
// are let go once called, so that their own code is freed on the board, and
// the agent runs on without them; the agent's maker too, so a change of
// config restarts the board into it.
import { describe, expect, it, vi } from 'vitest';
import type { AgentPart } from '../../src/agent/part';
import { agentPart } from '../../src/parts';
import { testConfig } from '../fakes/config';
import { Board, provisioned, sharedService, text } from './harness';

vi.mock('../../src/parts/table', async () => {
  const real = await vi.importActual<{ default: AgentPart }>('../../src/agent/part');
  // A fresh part object for every make, as the device's part function returns.
  return { TABLE: { agent: () => ({ ...real.default }) }, FREES: true };
});

const service = sharedService();

describe('what a boot calls once', () => {
  it('are let go once the outbox is open and the watchdog armed; delivery and a config change go on', async () => {
    const board = new Board();
    const cfg = await provisioned(service.svc.url, testConfig());
    cfg.agent.watchdog = true;
    board.save(cfg);
    const before = service.writes.length;
    const b = board.boot();
    expect(b.rt.mode()).toBe('running');
    // The store's load() too: only the boot reads the saved config.
    const store = b.rt.store as unknown as Record<string, unknown>;
    expect(store.load).toBeUndefined();
    expect(store.save).toBeTypeOf('function');
    const code = agentPart() as AgentPart;
    expect(code.createOutbox).toBeUndefined();
    expect(code.createMemoryOutbox).toBeUndefined();
    // The feeder's not yet: the watchdog arms once the link is up.
    expect(code.createWatchdogFeeder).toBeTypeOf('function');
    await b.run(5000);
    expect(b.out()).toContain('watchdog: armed');
    expect(code.createWatchdogFeeder).toBeUndefined();
    expect(code.watchdogTimeoutMs).toBeUndefined();
    // The agent's maker too, once the agent runs: a change restarts the board.
    expect(code.createAgent).toBeUndefined();
    await b.run(20000);
    expect(service.writes.length - before).toBe(9);
    expect(b.p.feeds).toBeGreaterThan(0);
    // A change is saved, and the board restarts into it; nothing is left unsent in between.
    b.cmd.set!('agent.backoffBaseMs', 3000);
    b.cmd.save!();
    expect(b.rt.mode()).toBe('console-only');
    expect(b.rt.why()).toBe('restarting in 1 s to start the agent');
    expect(b.p.reboots).toBe(0);
    await b.run(1500);
    expect(b.p.reboots).toBe(1);
    expect(b.p.errors).toEqual([]);
    expect(b.rt.queue()!.stats().depth).toBe(0);
    b.rt.stop();
    // The next boot reads the change from flash (this module state is one
    // program's; test/bundle/smoke.test.ts boots the real bundle again).
    expect(text(board.files.read('config.json'))).toMatch(/"backoffBaseMs": *3000\b/);
  });
});
