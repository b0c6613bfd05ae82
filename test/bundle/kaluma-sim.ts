// A stand-in for Kaluma 1.2.1 around the real device bundle: a fresh vm
// context with only the globals and built-in modules the platform reference
// lists, with Kaluma's quirks (console.log/error only, numeric timer ids,
// clearTimeout(undefined) throws, fs flags where only 'w' creates, connect()
// throwing while Wi-Fi is down) and without what the engine lacks. Any
// exception in a timer or driver callback is recorded: on the board it
// would kill that timer silently.
import vm from 'node:vm';
import { createKalumaNet, createKalumaRadio, httpPeer } from '../fakes/kaluma/net';
import type { KalumaNet, KalumaRadio, Peer } from '../fakes/kaluma/net';
import { createKalumaTimers } from '../fakes/kaluma/timers';
import { createKalumaFs } from '../fakes/kaluma-fs';
import type { KalumaFsFake } from '../fakes/kaluma-fs';
import { hex, wellFormed } from '../fakes/utf8-check';
import type { KalumaTimers } from '../fakes/kaluma/timers';

export interface Request {
  method: string;
  path: string;
  body: string;
}

export interface KalumaSim {
  ctx: vm.Context;
  out: string[];
  errors: string[];
  callbackErrors: string[];
  requests: Request[];
  files: Map<string, Uint8Array>;
  /** The 802.11 driver (global.__ieee80211dev): `ap` false takes the access point away. */
  wifi: KalumaRadio;
  /** Every require() the program made, in order. */
  required: string[];
  /** Kaluma's timers and the TCP driver, with what would hurt the board in their violations. */
  timers: KalumaTimers;
  net: KalumaNet;
  /** Kaluma's fs: refusals can be set, leaked handles counted. */
  fs: KalumaFsFake;
  /** storage.getItem()/key() calls: each overruns the C heap on the board. */
  storageReads: string[];
  /** Board resets by the watchdog (system.reboot); the program stops at the first. */
  readonly resets: number;
  /** Everything above that would hurt the board: timer and driver violations, decoder misuse. */
  harm(): string[];
  run(code: string): unknown;
  advance(ms: number): Promise<void>;
}

const REPLY = 'HTTP/1.1 200 OK\r\nContent-Length: 13\r\nDate: Sun, 22 Nov 2026 08:05:00 GMT\r\n\r\nValue updated';


/**
 * `program`: the bytes in the board's program area (what `.flash -w` stored);
 * none: a program run from a file, with erased flash behind it.
 * `programSector`: where the program area starts, in the flash module's
 * 4 KB sectors (Pico W 4, Pico 2 W 16).
 */
export function createKalumaSim(o: {
  files?: Map<string, Uint8Array>;
  ssid?: string;
  peer?: Peer;
  program?: Uint8Array;
  programSector?: number;
  /** A watchdog an earlier program left armed with this period (Kaluma keeps it across `.load`). */
  armedWatchdogMs?: number;
  /** What process.memoryUsage() says is used (default 100,000 of 184,312 B: a Pico W booted, no stand-in). */
  heapUsed?: number;
} = {}): KalumaSim {
  const kt = createKalumaTimers();
  const files = o.files ?? new Map<string, Uint8Array>();
  const storageReads: string[] = [];
  let wdtMs: number | undefined = o.armedWatchdogMs;
  let fedAt = 0;
  const decoderMisuse: string[] = [];
  const storage = new Map<string, string>();
  const required: string[] = [];
  const sim = { out: [] as string[], errors: [] as string[], callbackErrors: [] as string[], requests: [] as Request[], resets: 0 };
  const guard = (what: string, f: () => void): void => {
    try {
      f();
    } catch (e) {
      // After a reset the program is gone; what it was doing does not count.
      if (!sim.resets) sim.callbackErrors.push(what + ': ' + String(e));
    }
  };
  const str = (a: unknown[]): string => a.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' ');

  // Kaluma's fs with its error-path defects (test/fakes/kaluma-fs.ts), over `files`.
  const fs = createKalumaFs({ files });

  // The service: answers each whole request with REPLY and closes (HTTP/1.0).
  const service = o.peer ?? httpPeer(() => REPLY);
  const peer: Peer = {
    connect: (c) => service.connect(c),
    data(c, bytes) {
      const before = (service as { requests?: string[] }).requests?.length ?? 0;
      service.data?.(c, bytes);
      const reqs = (service as { requests?: string[] }).requests;
      if (reqs && reqs.length > before) {
        const raw = reqs[reqs.length - 1]!;
        const head = raw.indexOf('\r\n\r\n');
        const [method, path] = raw.split(' ');
        sim.requests.push({ method: method!, path: path!, body: Buffer.from(raw.slice(head + 4), 'latin1').toString('utf8') });
      }
    },
    closed: (c) => service.closed?.(c),
  };
  const net = createKalumaNet({ timers: kt, peer, latencyMs: 2 });
  // The radio's drivers: socket() refuses while the station link is down, a
  // radio reset drops every socket slot, as on the board.
  const wifi = createKalumaRadio({ ssid: o.ssid ?? 'field-net', net });
  // An exception in a driver callback is swallowed on the board: recorded here.
  const dev: Record<string, unknown> & { errno: number } = { errno: 0 };
  for (const k of ['connect', 'get_connection', 'scan', 'disconnect', 'reset']) {
    dev[k] = (...a: unknown[]): void => {
      const cb = a[a.length - 1];
      if (typeof cb === 'function') a[a.length - 1] = (...r: unknown[]) => guard(k + ' callback', () => (cb as (...x: unknown[]) => void)(...r));
      try {
        (wifi.dev[k] as (...x: unknown[]) => void)(...a);
      } finally {
        dev.errno = wifi.dev.errno;
      }
    };
  }
  // The hooks the program sets are the driver's to call.
  for (const k of ['assoc_cb', 'connect_cb', 'disconnect_cb']) {
    Object.defineProperty(dev, k, { get: () => wifi.dev[k], set: (f: unknown) => void (wifi.dev[k] = f), enumerable: true });
  }
  // Kaluma's wifi module, a thin wrapper over the driver, for a program that
  // requires it (the agent's ports do not: they drive the driver directly).
  class WiFi {
    connect(info: Record<string, unknown>, cb?: (err: unknown) => void): void {
      (dev['connect'] as (i: unknown, c: (e: unknown) => void) => void)(info, (e) => cb && cb(e));
    }
    getConnection(cb?: (err: unknown, info?: unknown) => void): void {
      (dev['get_connection'] as (c: (e: unknown, i?: unknown) => void) => void)((e, i) => cb && cb(e, i));
    }
    scan(cb?: (err: unknown, list?: unknown[]) => void): void {
      (dev['scan'] as (c: (e: unknown, l?: unknown[]) => void) => void)((e, l) => cb && cb(e, l));
    }
    disconnect(cb?: (err: unknown) => void): void {
      (dev['disconnect'] as (c: (e: unknown) => void) => void)((e) => cb && cb(e));
    }
    reset(cb?: (err: unknown) => void): void {
      (dev['reset'] as (c: (e: unknown) => void) => void)((e) => cb && cb(e));
    }
  }

  const modules: Record<string, unknown> = {
    fs,
    wifi: { WiFi },
    net: net.module,
    wdt: {
      WDT: class {
        constructor(ms: number) {
          wdtMs = ms;
          fedAt = kt.now();
        }
        // As on the board: reloads the counter whatever object it is called on.
        feed(): void {
          fedAt = kt.now();
        }
      },
    },
    rtc: { setTime: () => undefined, getTime: () => kt.now() },
    pico_cyw43: { PicoCYW43: class { putGpio(_p: number, v: unknown): void { if (typeof v !== 'boolean') throw new TypeError('boolean expected'); } getGpio(): boolean { return false; } } },
    rp2: { randomBigInt: () => BigInt('123456789012345678901234567890') },
    // Kaluma's flash module over the program area; other sectors read erased.
    flash: {
      Flash: class {
        constructor(
          private base: number,
          private count: number,
        ) {}
        read(block: number, buffer: Uint8Array, offset = 0): void {
          if (Object.prototype.toString.call(buffer) !== '[object Uint8Array]') throw new TypeError('buffer must be Uint8Array');
          const from = (this.base + block - (o.programSector ?? 4)) * 4096 + offset;
          for (let i = 0; i < buffer.length; i++) {
            const at = from + i;
            buffer[i] = this.count > 0 && o.program && at >= 0 && at < o.program.length ? o.program[at]! : 0xff;
          }
        }
      },
    },
  };

  const g: Record<string, unknown> = {
    require(name: string) {
      required.push(name);
      if (!(name in modules)) throw new Error('Failed to load module: ' + name);
      return modules[name];
    },
    board: { name: 'pico-w', uid: 'E6614103E7452D2F' },
    storage: {
      getItem(k: unknown) {
        if (typeof k !== 'string') throw new TypeError('string expected');
        storageReads.push(k);
        return storage.has(k) ? storage.get(k) : null;
      },
      setItem(k: unknown, v: unknown) {
        if (typeof k !== 'string' || typeof v !== 'string') throw new TypeError('string expected');
        storage.set(k, v);
      },
      removeItem: (k: string) => void storage.delete(k),
    },
    process: { arch: 'cortex-m0-plus', platform: 'rp2', version: '1.2.1', memoryUsage: () => ({ heapTotal: 184312, heapUsed: o.heapUsed ?? 100000, heapPeak: 130000 }) },
    console: { log: (...a: unknown[]) => void sim.out.push(str(a)), error: (...a: unknown[]) => void sim.errors.push(str(a)) },
    print: (...a: unknown[]) => void sim.out.push(str(a)),
    seed: () => undefined,
    millis: kt.globals.millis,
    // The only way a program resets the board is a watchdog left unfed:
    // system.reboot() arms it at 1 ms and waits in delay().
    delay: () => {
      if (wdtMs === undefined || wdtMs > 1000) return;
      sim.resets++;
      kt.halt();
      throw new Error('board reset by the watchdog');
    },
    pinMode: () => undefined,
    digitalRead: () => 1,
    digitalWrite: () => undefined,
    analogRead: (pin: number) => (pin === 30 ? 0.214 : 0.25),
    INPUT: 0,
    OUTPUT: 1,
    INPUT_PULLUP: 2,
    INPUT_PULLDOWN: 3,
    setTimeout: (cb: unknown, ms: unknown) => kt.globals.setTimeout(typeof cb === 'function' ? () => guard('timer callback', cb as () => void) : cb, ms),
    setInterval: (cb: unknown, ms: unknown) => kt.globals.setInterval(typeof cb === 'function' ? () => guard('interval callback', cb as () => void) : cb, ms),
    clearTimeout: kt.globals.clearTimeout,
    clearInterval: kt.globals.clearInterval,
    __netdev: net.netdev,
    __ieee80211dev: dev,
    TextEncoder,
    // Kaluma's decoder corrupts its heap on bytes that are not UTF-8.
    TextDecoder: class extends TextDecoder {
      override decode(b?: AllowSharedBufferSource): string {
        const bytes = b instanceof Uint8Array ? b : new Uint8Array(0);
        if (!wellFormed(bytes)) decoderMisuse.push('TextDecoder#decode(' + hex(bytes) + ') of bytes that are not UTF-8');
        return super.decode(b);
      }
    },
    btoa,
  };
  const ctx = vm.createContext(g);
  // What the engine lacks must be missing here too.
  vm.runInContext(
    `delete Promise.allSettled; delete Promise.any; delete Object.hasOwn; delete Array.prototype.at;
     delete Array.prototype.findLast; delete String.prototype.at; delete globalThis.WeakRef;
     delete globalThis.FinalizationRegistry; delete globalThis.Intl; delete globalThis.structuredClone;
     delete globalThis.queueMicrotask; delete globalThis.setImmediate; delete globalThis.SharedArrayBuffer;`,
    ctx,
  );

  return {
    ctx,
    ...sim,
    // Exceptions in driver callbacks (socket handlers) surface in the timer model.
    get callbackErrors() {
      return sim.callbackErrors.concat(sim.resets ? [] : kt.thrown);
    },
    get resets() {
      return sim.resets;
    },
    files,
    wifi,
    required,
    timers: kt,
    net,
    fs,
    storageReads,
    harm: () => kt.violations.concat(net.violations, decoderMisuse),
    // A line (or .load) is read after the loop's timers that are due have run.
    run: (code): unknown => {
      kt.fireDue();
      return vm.runInContext(code, ctx, { filename: 'agent.js' }) as unknown;
    },
    // In steps of 100 ms, so that a watchdog left unfed resets the board in time.
    async advance(ms) {
      for (let left = ms; left > 0 && !sim.resets; left -= 100) {
        await kt.advance(Math.min(100, left), () => new Promise((r) => setImmediate(r)));
        if (wdtMs !== undefined && wdtMs > 1000 && kt.now() - fedAt > wdtMs) {
          sim.resets++;
          kt.halt();
        }
      }
    },
  };
}

/**
 * The first boot after a config was flashed: the bundle checks the config once
 * its boot is done (the checker needs the heap the boot holds), writes the
 * checked form and restarts the board. Returns that boot, stopped by its
 * restart; its `files` are what the next boot finds.
 */
export async function firstBoot(bundle: string, files: Map<string, Uint8Array>): Promise<KalumaSim> {
  const first = createKalumaSim({ files, program: new TextEncoder().encode(bundle) });
  first.run(bundle);
  await first.advance(2000);
  return first;
}
