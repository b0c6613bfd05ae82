// A stand-in for the Pico W's radio driver, run on the device's engine BEFORE
// the unmodified device bundle (the two are concatenated): __ieee80211dev and
// __netdev (test/fakes/kaluma/net.ts, which records what would hurt the
// board), the driver objects the agent's ports drive directly (Kaluma's wifi
// and net modules would drive the same ones), a service that answers every
// operation the agent uses (writes, reads, API key, device creation), and
// /config.json from __BENCH (set by the runner in a line before this one).
// Prints heap figures every periodMs of real time, so that everything here
// can be measured alone (with an empty bundle) and subtracted.
//
// __BENCH.speed > 1 runs the program's clock that many times faster than real
// time (a 1 h Wi-Fi outage at 1 s sampling takes a minute): Kaluma's millis()
// is scaled, and its setInterval() fires on that clock, once per period of it
// and never ahead, as Kaluma's does on real time (the program's timers port
// counts ticks instead of reading the clock on that promise). The AP's outage
// is in that clock; so are the t= of the marks. The network's latency stays
// real (2 ms a step), so a request looks slower to the program. From the
// AP's return on, the clock runs at real time.
import { readdir, readFile, stat, writeFile } from 'fs';
import { OUTBOX_DIR, SEGMENT } from '../../../src/queue/dir';
import { createKalumaNet, type Peer, type PeerConn } from '../../../test/fakes/kaluma/net';
import type { KalumaTimers } from '../../../test/fakes/kaluma/timers';

declare function print(s: string): void;
declare function setTimeout(cb: () => void, ms: number): number;
declare function setInterval(cb: () => void, ms: number): number;
declare const process: { memoryUsage(): { heapTotal: number; heapUsed: number; heapPeak: number } };
declare const global: Record<string, unknown>;
declare const __BENCH: {
  config?: string;
  ssid: string;
  /** [from, to) in the program's clock: the AP is not visible. */
  apDownMs?: [number, number];
  periodMs: number;
  hosts: Record<string, string>;
  speed?: number;
  /** The JSON device's batch: a smaller JSON write after the outage means the backlog is gone. */
  drainBatch?: number;
  /** Ballast bytes, kept: the stand-in's live set a whole number of collection steps (BoardOptions.pad). */
  pad?: number;
  /** Writes to this device are refused with 401 until the program's clock reaches untilMs (BoardOptions.refuse). */
  refuse?: { deviceId: number; untilMs: number };
  /** The document of the configuration device 12 (BoardOptions.remoteDoc). */
  remoteDoc?: string;
  /** false: no post-collection probe at the marks. */
  probe?: false;
  /** Carried over a watchdog reset: the program clock at this boot, the service's counts. */
  offsetMs: number;
  writes: number;
  records: number;
};

const B = __BENCH;

// The program's uptime, scaled from Kaluma's (integers only: a product past
// 2^28 would be a heap number on every call), and the bench's clock, which
// goes on across watchdog resets.
const realMillis = global['millis'] as () => number;
const realSetInterval = setInterval;
const speed = B.speed && B.speed > 1 ? Math.floor(B.speed) : 1;
// Once the AP is back the clock runs at real time again: a board drains its
// backlog while sampling at 1x, and at 60x the readings of a slow engine
// (a PC emulating the board's) came in faster than a drain could send them.
let rate = speed;
let real0 = realMillis();
let base = 0;
const uptime = (): number => base + (realMillis() - real0) * rate;
const realTime = (): void => {
  base = uptime();
  real0 = realMillis();
  rate = 1;
};
const clock = (): number => B.offsetMs + uptime();
if (speed > 1) {
  global['millis'] = uptime;
  interface Every {
    id: number;
    ms: number;
    due: number;
    cb: () => void;
  }
  const every: Every[] = [];
  let ids = 0;
  global['setInterval'] = (cb: () => void, ms: number): number => {
    const e = { id: 100000 + (ids++ % 100000), ms: ms > 1 ? ms : 1, due: uptime() + (ms > 1 ? ms : 1), cb };
    every.push(e);
    return e.id;
  };
  global['clearInterval'] = (id: number): void => {
    for (let i = 0; i < every.length; i++) if (every[i]!.id === id) every.splice(i, 1);
  };
  realSetInterval(() => {
    const now = uptime();
    for (let i = 0; i < every.length; i++) {
      const e = every[i]!;
      // Every period that came due, in order: Kaluma's loop catches up after a blocked loop, never ahead.
      for (let k = 0; k < 1000 && e.due <= now && every[i] === e; k++) {
        e.due += e.ms;
        e.cb();
      }
    }
  }, 1);
}

let up = false;
let apBack = false;
/** Records, bytes and drops the outbox holds, from its cursor and its segments' sizes (src/queue/outbox.ts). */
function backlog(): string {
  try {
    // Kaluma's fs: synchronous calls without the Sync suffix. Imported by
    // name: a namespace import copies the module (4 KB in the stand-in's figure).
    const fs = { readFile, readdir, stat } as unknown as { readFile(p: string): Uint8Array; readdir(p: string): string[]; stat(p: string): { size: number } };
    const text = String.fromCharCode.apply(null, fs.readFile('/' + OUTBOX_DIR + '/c/cursor') as unknown as number[]);
    const c = JSON.parse(text) as { s: number; o: number; n: number; d: number; r: number };
    let bytes = 0;
    for (const f of fs.readdir('/' + OUTBOX_DIR)) {
      const id = SEGMENT.test(f) ? +f.slice(4) : -1;
      if (id >= c.s) bytes += fs.stat('/' + OUTBOX_DIR + '/' + f).size - (id === c.s ? c.o : 0);
    }
    return 'records=' + (c.n - 1 - records - c.d - c.r) + ' bytes=' + bytes + ' dropped=' + c.d;
  } catch (e) {
    return 'unread=' + String(e).replace(/\s/g, '_');
  }
}

const apVisible = (): boolean => {
  const now = clock();
  const visible = !B.apDownMs || now < B.apDownMs[0] || now >= B.apDownMs[1];
  if (visible && B.apDownMs && !apBack && now >= B.apDownMs[1]) {
    apBack = true;
    realTime();
    // The backlog when the program first sees the AP again, read from the
    // outbox's files by the stand-in itself: status() would load a cold
    // module, whose heap is the console's, not the drain's.
    setTimeout(() => print('@APBACK t=' + clock() + ' ' + backlog() + '\n'), 0);
  }
  return visible;
};
/** Associated and the AP still there: what the radio would report. */
const linkUp = (): boolean => {
  if (!apVisible()) up = false;
  return up;
};
const AP = { ssid: B.ssid, bssid: '00:11:22:33:44:55', security: 'WPA2_PSK', rssi: -52, channel: 6 };
/** The driver calls the hooks a program set on it (Kaluma's wifi module sets all three). */
const hook = (name: string): void => {
  const f = wifiDev[name];
  if (typeof f === 'function') (f as () => void)();
};
// As the driver: every callback gets 0 (its conversion loses -1), errno is right.
const wifiDev: Record<string, unknown> = {
  errno: 0,
  // A radio reset drops every socket slot without a word, as km_cyw43_deinit does.
  reset: (cb: (e: number) => void) => ((up = false), net.radioReset(), (wifiDev['errno'] = 0), cb(0)),
  scan: (cb: (e: number, l: unknown[]) => void) => ((wifiDev['errno'] = 0), cb(0, apVisible() ? [AP] : [])),
  connect(info: { ssid?: string }, cb: (e: number) => void) {
    up = apVisible() && info.ssid === B.ssid;
    wifiDev['errno'] = up ? 0 : -1;
    if (up) {
      hook('assoc_cb');
      hook('connect_cb');
    }
    cb(0);
  },
  disconnect: (cb: (e: number) => void) => ((up = false), (wifiDev['errno'] = 0), hook('disconnect_cb'), cb(0)),
  get_connection: (cb: (e: number, i?: unknown) => void) => {
    wifiDev['errno'] = linkUp() ? 0 : -1;
    if (up) cb(0, AP);
    else cb(0);
  },
};

// The service. Counts, keeps nothing but the last value written (for test()'s read back).
let writes = B.writes;
let records = B.records;
let drained = false;
let lastValue = '0';
let reads = 0;
const API_KEY = 'k3y0123456789abcdef0123456789abcd';
const OK = 'HTTP/1.1 200 OK\r\nDate: Sun, 22 Nov 2026 08:05:00 GMT\r\nContent-Length: ';
const reply = (body: string): string => OK + body.length + '\r\n\r\n' + body;
function answer(head: string, seqs: number): string {
  // The operation: the path segment after /api/ (the base URL may have a prefix).
  const a = head.indexOf('/api/') + 5;
  const op = a > 4 && a < 300 ? head.slice(a, head.indexOf('/', a)) : '';
  if (op === 'updatedevicevalue' || op === 'updatedevicejson' || op === 'updatedevicexml') {
    // /api/<op>/<key>/<id>/...: a refused key for one device, for a while.
    const no = B.refuse;
    if (no && clock() < no.untilMs && head.slice(a).split('/')[2] === String(no.deviceId)) return 'HTTP/1.1 401 Unauthorized\r\nContent-Length: 15\r\n\r\nunknown API key';
    writes++;
    const n = op === 'updatedevicejson' ? seqs || 1 : 1;
    records += n;
    if (op === 'updatedevicevalue') {
      const end = head.indexOf(' HTTP/');
      lastValue = head.slice(head.lastIndexOf('/', end) + 1, end);
    }
    if (n < (B.drainBatch || 0) && apBack && !drained) {
      drained = true;
      print('@DRAINED t=' + clock() + ' writes=' + writes + ' records=' + records + '\n');
    }
    return reply('Value updated');
  }
  // Control devices for outputs (scripts/measure/engine/gc-trace.ts --outputs): id 8
  // holds a level, id 10 a JSON document with a duty in percent, each
  // changed at every read.
  reads++;
  if (op === 'showdevicevalue') return reply(head.indexOf('/8/8 ') > 0 ? (reads & 2 ? 'on' : '0') : lastValue);
  // Id 12: a configuration device (remote.id), holding BoardOptions.remoteDoc.
  if (op === 'showdevicejson') return reply(head.indexOf('/10/10 ') > 0 ? '{"vent":' + (reads & 2 ? 75 : 20) + ',"note":"greenhouse"}' : head.indexOf('/12/12 ') > 0 && B.remoteDoc ? B.remoteDoc : '{}');
  if (op === 'showdevicexml') return reply('<data></data>');
  // The spec leaves both replies' shapes open; these are shapes the agent's parser reads.
  if (op === 'generateapikey') return reply('{"APIKey":"' + API_KEY + '"}');
  if (op === 'createuserdevice') return reply('{"DeviceID":4,"DevicePIN":4444}');
  return 'HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found';
}

/** What a connection has received of its request so far. */
interface Req {
  /** The head's text so far, until its blank line. */
  head?: string;
  /** Bytes of CRLFCRLF matched at the end of what came. */
  crlf?: number;
  /** Body bytes still to come; undefined while the head comes. */
  left?: number;
  /** '"seq":' marks in the body, and bytes of the mark matched. */
  seqs?: number;
  mark?: number;
}
const SEQ = '"seq":';
const CRLF2 = '\r\n\r\n';

/**
 * httpPeer of the fake, without its Map: JerryScript's Map keeps a slot for
 * every key ever set (delete leaves a hole), 8 B per connection that would
 * show as growth of the floor. The request is read as it streams in, from
 * each driver write's own string (no copy: on the board the driver hands it
 * to C): the head kept as text, the body only counted (its length and its
 * records), so that the stand-in's own heap while a batch arrives stays a
 * few hundred bytes; joining the whole request again at every driver write
 * was several KB of its own in every drain figure.
 */
const service: Peer = {
  connect: (c) => c.accept(),
  text(c, data) {
    const q = c as PeerConn & Req;
    // One request a connection (HTTP/1.0): a chunk in the head starts with head bytes.
    for (let i = 0; i < data.length; i++) {
      const b = data.charCodeAt(i);
      if (q.left === undefined) {
        const m = q.crlf || 0;
        q.crlf = b === CRLF2.charCodeAt(m) ? m + 1 : b === 13 ? 1 : 0;
        if (q.crlf < 4) continue;
        const head = q.head ? q.head + data.slice(0, i + 1) : data.slice(0, i + 1);
        const cl = /\r\ncontent-length: *(\d+)/i.exec(head);
        q.head = head;
        q.left = cl ? Number(cl[1]) : 0;
        q.seqs = 0;
        q.mark = 0;
      } else if (q.left > 0) {
        q.left--;
        const m = q.mark || 0;
        q.mark = b === SEQ.charCodeAt(m) ? m + 1 : b === 34 ? 1 : 0;
        if (q.mark === SEQ.length) {
          q.seqs = (q.seqs || 0) + 1;
          q.mark = 0;
        }
      }
      if (q.left === 0) {
        const head = q.head as string;
        const seqs = q.seqs || 0;
        q.head = q.left = q.crlf = q.seqs = q.mark = undefined;
        c.send(answer(head, seqs));
        c.fin();
        return;
      }
    }
    if (q.left === undefined) q.head = q.head ? q.head + data : data;
  },
};
const net = createKalumaNet({ timers: { after: (ms: number, cb: () => void) => void setTimeout(cb, ms) } as unknown as KalumaTimers, peer: service, latencyMs: 2, keepReceived: false });
net.dns = B.hosts;
// socket() asks the link at the moment it is called.
Object.defineProperty(net.link, 'up', { get: linkUp, set: () => undefined });
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
// A reset the program asks for (system.reboot(): a watchdog armed at 1 ms)
// ends the run before the next mark: one mark first, so that the boot's peak
// is seen even when the boot lasts less than a mark's period (the first boot
// after a config is flashed checks it and restarts within a second).
type WdtCtor = { new (ms: number): unknown; prototype: unknown };
let wdtModule: { WDT: WdtCtor } | undefined;
function wdtWithMark(): { WDT: WdtCtor } {
  if (wdtModule) return wdtModule;
  const real = (kalumaRequire('wdt') as { WDT: WdtCtor }).WDT;
  const WDT = function (ms: number): unknown {
    if (ms < 100) mark();
    return new real(ms);
  } as unknown as WdtCtor;
  WDT.prototype = real.prototype;
  return (wdtModule = { WDT });
}
global['require'] = (name: string): unknown => (name === 'pico_cyw43' ? { PicoCYW43 } : name === 'wdt' ? wdtWithMark() : kalumaRequire(name));
global['__netdev'] = net.netdev;
// Kaluma's writeFile(path, data): synchronous (Node's types would want a callback).
if (B.config) (writeFile as unknown as (p: string, d: Uint8Array) => void)('/config.json', new TextEncoder().encode(B.config));

/**
 * The live set: allocate small garbage until heapUsed drops (a collection
 * ran: every ~1/32 of the heap, 5.7 KB on the Pico W's, 32 KB on a 1 MB one)
 * and take the value right after the drop. -1 when none came in the bound.
 */
function floor(): number {
  if (B.probe === false) return -1;
  let last = process.memoryUsage().heapUsed;
  for (let i = 0; i < 20000; i++) {
    const g = [i, i];
    if (g[0] !== i) print('');
    const u = process.memoryUsage().heapUsed;
    if (u < last) return u;
    last = u;
  }
  return -1;
}

function mark(): void {
  const m = process.memoryUsage();
  net.driverWrites.length = 0;
  const f = floor();
  print('@HEAP t=' + clock() + ' used=' + m.heapUsed + ' floor=' + f + ' peak=' + m.heapPeak + ' total=' + m.heapTotal + ' writes=' + writes + ' records=' + records + ' harm=' + net.violations.length + '\n');
}
// Last, once everything else of the stand-in is made: the engine's own count
// of the agent then starts a whole number of collection steps above where a
// board's would (whose driver is C and takes none of this heap).
if (B.pad) global['__ballast'] = new Uint8Array(B.pad);
realSetInterval(mark, B.periodMs);
