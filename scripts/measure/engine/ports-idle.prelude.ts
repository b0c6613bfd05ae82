// Runs before the program of ports-idle.ts, as a program of its own (so it
// is there before that program requires anything):
// stand-ins for what the Pico W's firmware has and the engine lacks, the
// radio chip's module and drivers, made before anything is measured so
// that they weigh the same in every figure.
import { createKalumaNet } from '../../../test/fakes/kaluma/net';
import type { KalumaTimers } from '../../../test/fakes/kaluma/timers';

declare function setTimeout(cb: () => void, ms: number): number;
declare const global: Record<string, unknown>;

const kalumaRequire = global['require'] as (id: string) => unknown;
class PicoCYW43 {
  putGpio(): void {}
  getGpio(): boolean {
    return false;
  }
}
const cyw43 = { PicoCYW43 };
global['require'] = (id: string): unknown => (id === 'pico_cyw43' ? cyw43 : kalumaRequire(id));
// The radio's driver objects, which the ports drive directly: no link (a
// board that never joined), every call answered at once as the driver does.
const done = (cb: (e: number) => void): void => cb(0);
global['__ieee80211dev'] = { errno: 0, get_connection: done, connect: (_i: unknown, cb: (e: number) => void) => cb(0), scan: (cb: (e: number, l: unknown[]) => void) => cb(0, []), disconnect: done, reset: done };
const net = createKalumaNet({
  timers: { after: (ms: number, cb: () => void) => void setTimeout(cb, ms) } as unknown as KalumaTimers,
  peer: { connect: (c) => c.refuse() },
});
global['__netdev'] = net.netdev;
