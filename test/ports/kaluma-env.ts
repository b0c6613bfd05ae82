// Loads the real Kaluma ports (src/ports/kaluma) fresh against the models of
// Kaluma's timers and TCP driver: the globals they use are stubbed and the
// built-in modules mocked, so the ports run as on the board, defects included.
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
}

const slot = globalThis as unknown as { __kalumaNetModule?: KalumaNet['module'] };

vi.mock('net', () => ({
  // The model is made per test; each new Socket is built by the current one.
  Socket: class {
    constructor() {
      return new (slot.__kalumaNetModule!.Socket)() as object;
    }
  },
}));
vi.mock('rtc', () => ({ setTime: () => undefined, getTime: () => 0 }));

export async function kalumaEnv(o: { peer: Peer; firstId?: number; latencyMs?: number }): Promise<KalumaEnv> {
  vi.resetModules();
  const timers = createKalumaTimers({ firstId: o.firstId });
  const net = createKalumaNet({ timers, peer: o.peer, latencyMs: o.latencyMs });
  const printed: string[] = [];
  slot.__kalumaNetModule = net.module;
  for (const [k, v] of Object.entries(timers.globals)) vi.stubGlobal(k, v);
  vi.stubGlobal('__netdev', net.netdev);
  vi.stubGlobal('console', { log: () => undefined, error: (l: string) => void printed.push(l) });
  const time = await import('../../src/ports/kaluma/time');
  const sockets = await import('../../src/ports/kaluma/sockets');
  return { timers, net, time, sockets, printed };
}
