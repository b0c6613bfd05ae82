// A stand-in for the Pico W's radio driver, run on the device's engine BEFORE
// the unmodified device bundle (the two are concatenated): __ieee80211dev for
// Kaluma's wifi module, __netdev (test/fakes/kaluma/net.ts, which records
// what would hurt the board) for its net module, a service that answers every
// write, and /config.json from __BENCH (set by the runner in a line before
// this one). Prints heap figures every PERIOD_MS, and what the stand-in
// itself takes, so it can be subtracted.
import { writeFile } from 'fs';
import { createKalumaNet, httpPeer } from '../../test/fakes/kaluma/net';
import type { KalumaTimers } from '../../test/fakes/kaluma/timers';

declare function print(s: string): void;
declare function setTimeout(cb: () => void, ms: number): number;
declare function setInterval(cb: () => void, ms: number): number;
declare const process: { memoryUsage(): { heapTotal: number; heapUsed: number; heapPeak: number } };
declare const global: Record<string, unknown>;
declare const __BENCH: { config?: string; ssid: string; apDownMs?: [number, number]; periodMs: number; hosts: Record<string, string> };

const before = process.memoryUsage().heapUsed;
const B = __BENCH;
let up = false;
let now = 0;
const apVisible = (): boolean => !B.apDownMs || now < B.apDownMs[0] || now >= B.apDownMs[1];
const wifiDev: Record<string, unknown> = {
  errno: 0,
  reset: (cb: (e: number) => void) => ((up = false), cb(0)),
  scan: (cb: (e: number, l: unknown[]) => void) => cb(0, apVisible() ? [{ ssid: B.ssid, bssid: '00:11:22:33:44:55', security: 'WPA2_PSK', rssi: -52, channel: 6 }] : []),
  connect(info: { ssid?: string }, cb: (e: number) => void) {
    up = apVisible() && info.ssid === B.ssid;
    cb(0);
  },
  disconnect: (cb: (e: number) => void) => ((up = false), cb(0)),
  get_connection: (cb: (e: number, i: unknown) => void) => cb(0, up && apVisible() ? { ssid: B.ssid, bssid: '00:11:22:33:44:55' } : null),
};
let writes = 0;
const service = httpPeer(() => (writes++, 'HTTP/1.1 200 OK\r\nContent-Length: 13\r\nDate: Sun, 22 Nov 2026 08:05:00 GMT\r\n\r\nValue updated'));
service.requests.push = () => 0; // count, do not keep
const net = createKalumaNet({ timers: { after: (ms: number, cb: () => void) => void setTimeout(cb, ms) } as unknown as KalumaTimers, peer: service, latencyMs: 2 });
net.dns = B.hosts;
global['__ieee80211dev'] = wifiDev;
// The radio chip's module (the LED is on its GPIO 0) is native on the board and absent here.
const kalumaRequire = global['require'] as (name: string) => unknown;
class PicoCYW43 {
  private pins = [false, false, false];
  putGpio(pin: number, on: boolean): void {
    if (typeof on !== 'boolean') throw new TypeError('value must be a boolean');
    this.pins[pin] = on;
  }
  getGpio(pin: number): boolean {
    return !!this.pins[pin];
  }
}
global['require'] = (name: string): unknown => (name === 'pico_cyw43' ? { PicoCYW43 } : kalumaRequire(name));
global['__netdev'] = net.netdev;
// Kaluma's writeFile(path, data): synchronous (Node's types would want a callback).
if (B.config) (writeFile as unknown as (p: string, d: Uint8Array) => void)('/config.json', new TextEncoder().encode(B.config));
const standIn = process.memoryUsage().heapUsed - before;

setInterval(() => {
  now += B.periodMs;
  net.link.up = up && apVisible();
  if (!net.link.up) up = false;
  const m = process.memoryUsage();
  net.driverWrites.length = 0;
  // The live set: allocate ~8 KB of small garbage (a collection runs every
  // ~5.7 KB of growth) and keep the lowest heapUsed seen, right after one.
  let floor = Infinity;
  for (let i = 0; i < 300; i++) {
    const g = [i, i];
    if (g[0]! < 0) print('');
    const u = process.memoryUsage().heapUsed;
    if (u < floor) floor = u;
  }
  print('@HEAP t=' + now + ' used=' + m.heapUsed + ' floor=' + floor + ' peak=' + m.heapPeak + ' writes=' + writes + ' standIn=' + standIn + ' harm=' + net.violations.length + '\n');
}, B.periodMs);
