// Loads the real Kaluma ports (src/ports/kaluma) fresh against the models of
// Kaluma's timers and TCP driver: the globals they use are stubbed, the
// driver object __netdev and Kaluma's require() among them (the ports require
// its built-in modules on first use, through globalThis; never net), so the
// ports run as on the board, defects included.
import { vi } from 'vitest';
import { createKalumaNet, type KalumaNet, type Peer } from '../fakes/kaluma/net';
import { createKalumaTimers, type KalumaTimers } from '../fakes/kaluma/timers';
import type * as TimePort from '../../src/ports/kaluma/time';
import type * as SocketsPort from '../../src/ports/kaluma/sockets';

export interface KalumaEnv {
  timers: KalumaTimers;
  net: KalumaNet;
  time: typeof TimePort;
  sockets: typeof SocketsPort;
  /** console.error lines printed by the ports. */
  printed: string[];
  /** Every require() the ports made, in order. */
  required: string[];
}

/**
 * Stubs Kaluma's global require() with these modules; any other name throws
 * as Kaluma does. Returns the list of names asked for, in order.
 */
export function stubKalumaRequire(modules: Record<string, unknown>): string[] {
  const required: string[] = [];
  vi.stubGlobal('require', (id: string): unknown => {
    required.push(id);
    if (!(id in modules)) throw new Error('Failed to load module: ' + id);
    return modules[id];
  });
  return required;
}

export async function kalumaEnv(o: { peer: Peer; firstId?: number; latencyMs?: number }): Promise<KalumaEnv> {
  vi.resetModules();
  const timers = createKalumaTimers({ firstId: o.firstId });
  const net = createKalumaNet({ timers, peer: o.peer, latencyMs: o.latencyMs });
  const printed: string[] = [];
  // Kaluma has a net module; the port must not ask for it (recorded in `required`).
  const required = stubKalumaRequire({ net: net.module, rtc: { setTime: () => undefined, getTime: () => 0 } });
  for (const [k, v] of Object.entries(timers.globals)) vi.stubGlobal(k, v);
  vi.stubGlobal('__netdev', net.netdev);
  vi.stubGlobal('console', { log: () => undefined, error: (l: string) => void printed.push(l) });
  const time = await import('../../src/ports/kaluma/time');
  const sockets = await import('../../src/ports/kaluma/sockets');
  return { timers, net, time, sockets, printed, required };
}
