// The agent's part as the device build makes it (src/parts/table.ts replaced:
// a function that makes the part, and FREES true): the factories a boot calls
// once (the outbox's, the watchdog feeder's), and the config store's load(),
// are let go once called, so that their own code is freed on the board, and
// the agent runs on without them.
import { describe, expect, it, vi } from 'vitest';
import type { AgentPart } from '../../src/agent/part';
import { agentPart } from '../../src/parts';
import { testConfig } from '../fakes/config';
import { Board, provisioned, sharedService } from './harness';

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
    const part = agentPart() as AgentPart;
    expect(part.createOutbox).toBeUndefined();
    expect(part.createMemoryOutbox).toBeUndefined();
    // The feeder's not yet: the watchdog arms once the link is up.
    expect(part.createWatchdogFeeder).toBeTypeOf('function');
    await b.run(5000);
    expect(b.out()).toContain('watchdog: armed');
    expect(part.createWatchdogFeeder).toBeUndefined();
    expect(part.watchdogTimeoutMs).toBeUndefined();
    // What the boot calls again stays.
    expect(part.createAgent).toBeTypeOf('function');
    await b.run(20000);
    expect(service.writes.length - before).toBe(9);
    expect(b.p.feeds).toBeGreaterThan(0);
    // A change applied in place makes a new agent over the same outbox.
    b.cmd.set!('agent.backoffBaseMs', 3000);
    b.cmd.save!();
    expect(b.rt.mode()).toBe('running');
    expect(b.p.errors).toEqual([]);
    await b.run(10000);
    expect(service.writes.length - before).toBeGreaterThanOrEqual(12);
    expect(b.rt.queue()!.stats().depth).toBe(0);
    b.rt.stop();
  });
});
