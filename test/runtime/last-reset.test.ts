// How the health report names the end of the boot before: the very first
// boot, and every restart or stop someone asked for (reboot(), save() on the
// device, the host's Ctrl-C), by name; only an end nobody asked for (a
// watchdog reset, a power cut, a crash) is "unasked". The agent's part as the
// device build makes it (its maker let go once the agent runs), so a save()
// restarts the board as it does there.
import { describe, expect, it, vi } from 'vitest';
import { healthReport } from '../../src/agent/health';
import type { AgentPart } from '../../src/agent/part';
import type { Runtime } from '../../src/runtime';
import { testConfig } from '../fakes/config';
import { Board, DEAD_URL } from './harness';

vi.mock('../../src/parts/table', async () => {
  const real = await vi.importActual<{ default: AgentPart }>('../../src/agent/part');
  return { TABLE: { agent: () => ({ ...real.default }) }, FREES: true };
});

const lastReset = (rt: Runtime): string => (JSON.parse(healthReport(rt)) as { lastReset: string }).lastReset;

function configured(): Board {
  const board = new Board();
  board.save(testConfig(DEAD_URL));
  return board;
}

describe("the health report's lastReset", () => {
  it('names the very first boot (no boot state on flash) as such', () => {
    const b = configured().boot();
    expect(lastReset(b.rt)).toBe('first boot: no earlier boot state on flash');
    b.rt.stop();
  });

  it('calls a boot that ended without a word unasked, with what it was doing', () => {
    const board = configured();
    board.boot().rt.stop();
    const b = board.boot();
    expect(lastReset(b.rt)).toMatch(/^unasked \(watchdog, power or crash\) while: \w+/);
    b.rt.stop();
  });

  it('names a reboot() typed at the console', () => {
    const board = configured();
    const a = board.boot();
    a.cmd.reboot!();
    expect(a.p.reboots).toBe(1);
    const b = board.boot();
    expect(lastReset(b.rt)).toBe('restart: reboot()');
    b.rt.stop();
  });

  it('names the restart a save() makes on the device', async () => {
    const board = configured();
    const a = board.boot();
    a.cmd.set!('agent.backoffBaseMs', 3000);
    a.cmd.save!();
    await a.run(1500);
    expect(a.p.reboots).toBe(1);
    a.rt.stop();
    const b = board.boot();
    expect(lastReset(b.rt)).toBe('restart: to start the agent');
    b.rt.stop();
  });

  it("names the host's stop (what npm start records on Ctrl-C)", () => {
    const board = configured();
    const a = board.boot();
    a.rt.state.restartAsked('stop: Ctrl-C in npm start');
    a.rt.stop();
    const b = board.boot();
    expect(lastReset(b.rt)).toBe('stop: Ctrl-C in npm start');
    // Asked for: not counted toward safe mode.
    expect(b.rt.state.rapidBoots).toBe(0);
    b.rt.stop();
  });
});
