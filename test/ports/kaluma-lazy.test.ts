// The Kaluma ports require no built-in module when they are loaded: each is
// required at its first use, and only once. A module costs heap from the
// moment it is required (net with events and stream about 7.5 KB, wifi
// 3.8 KB), so a board with no network configured must never load them, and
// net and wifi (with events and stream) are never loaded at all: the ports
// drive the radio's driver objects, __netdev and __ieee80211dev, directly.
//
// The ports are bundled here as the device bundle is (one IIFE, Kaluma's
// modules left to its require()) and run in a context whose require()
// records every name: an ES import of a Kaluma module in a port would turn
// into a require() at the top of the bundle and show at load. (Under the
// test runner itself an import of 'net' would quietly load Node's.)
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, KALUMA_MODULES } from '../../scripts/build/build';
import { toSaved } from '../../src/config/saved';
import type { Platform } from '../../src/ports/ports';
import { createKalumaSim, firstBoot } from '../bundle/kaluma-sim';
import { testConfig } from '../fakes/config';
import { createKalumaNet, createKalumaRadio } from '../fakes/kaluma/net';
import { createKalumaTimers } from '../fakes/kaluma/timers';

let code = '';

beforeAll(async () => {
  const r = await build({
    stdin: {
      contents: "import { createKalumaPlatform } from './src/ports/kaluma/index';\n(globalThis as unknown as { platform: unknown }).platform = createKalumaPlatform();\n",
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    platform: 'neutral',
    target: 'es2019',
    external: KALUMA_MODULES,
    write: false,
    logLevel: 'silent',
  });
  code = r.outputFiles[0]!.text;
});

interface Board {
  platform: Platform;
  /** Every require() made, in order. */
  required: string[];
  /** Reads of the global `storage` (a getter that requires Kaluma's storage module). */
  storageReads: number;
}

/** Loads the bundled ports on a stand-in for Kaluma's globals and modules. */
function load(): Board {
  const timers = createKalumaTimers();
  const net = createKalumaNet({ timers, peer: { connect: () => undefined } });
  const radio = createKalumaRadio({ ssid: 'field-net', net });
  radio.up = true;
  // Kaluma has these modules; the ports must not ask for them.
  const modules: Record<string, unknown> = {
    net: net.module,
    wifi: { WiFi: class {} },
    events: {},
    stream: {},
    wdt: { WDT: class { feed(): void {} } },
    rtc: { setTime: () => undefined, getTime: () => 0 },
    fs: { exists: () => false },
    pico_cyw43: { PicoCYW43: class { putGpio(): void {} } },
  };
  const board = { platform: undefined as unknown as Platform, required: [] as string[], storageReads: 0 };
  const kv = { getItem: () => null, setItem: () => undefined, removeItem: () => undefined };
  const g: Record<string, unknown> = {
    require(id: string): unknown {
      board.required.push(id);
      if (!(id in modules)) throw new Error('Failed to load module: ' + id);
      return modules[id];
    },
    board: { name: 'pico-w', uid: '' },
    pinMode: () => undefined,
    digitalWrite: () => undefined,
    OUTPUT: 1,
    INPUT: 0,
    millis: timers.globals.millis,
    setTimeout: timers.globals.setTimeout,
    setInterval: timers.globals.setInterval,
    clearTimeout: timers.globals.clearTimeout,
    clearInterval: timers.globals.clearInterval,
    __netdev: net.netdev,
    __ieee80211dev: radio.dev,
    console: { log: () => undefined, error: () => undefined },
    // Kaluma's process: only its heap figures (the Pico W's heap, a live set far from a step).
    process: { memoryUsage: () => ({ heapTotal: 184312, heapUsed: 60000, heapPeak: 70000 }) },
    TextEncoder,
    TextDecoder,
  };
  Object.defineProperty(g, 'storage', {
    get: () => {
      board.storageReads++;
      return kv;
    },
  });
  const ctx = vm.createContext(g);
  vm.runInContext(code, ctx);
  board.platform = g['platform'] as Platform;
  return board;
}

describe('Kaluma ports: built-in modules required on first use, once', () => {
  it('loading the ports and making the platform requires no module at all', () => {
    const b = load();
    expect(b.required).toEqual([]);
    expect(b.storageReads).toBe(0);
    // What a board without network does: clock, timers, log, pins, console.
    b.platform.clock.uptimeMs();
    b.platform.timers.clearTimeout(b.platform.timers.setTimeout(() => undefined, 10));
    b.platform.log.info('x');
    b.platform.pins.digitalOut(2).write(true);
    b.platform.console.expose('status', () => undefined);
    expect(b.required).toEqual([]);
  });

  it('the radio: neither wifi nor net (nor events, stream) is ever required, the ports drive the drivers', async () => {
    const b = load();
    expect(await b.platform.wifi.isUp()).toBe(true);
    await b.platform.wifi.disconnect();
    expect(await b.platform.wifi.isUp()).toBe(false);
    const h = { onConnect: () => undefined, onData: () => undefined, onClose: () => undefined };
    expect(() => b.platform.sockets.connect('10.0.0.5', 80, h)).toThrow('WiFi is not connected.');
    // connect and scan (and reset) keep an armed watchdog quiet first: only wdt may come of them.
    expect(await b.platform.wifi.connect({ ssid: 'field-net', password: 'correct horse' })).toBe(true);
    expect(await b.platform.wifi.scan()).toEqual(['field-net']);
    b.platform.sockets.connect('10.0.0.5', 80, h).destroy();
    b.platform.sockets.connect('10.0.0.5', 80, h).destroy();
    await b.platform.wifi.reset();
    expect(b.required).toEqual(['wdt']);
  });

  it('the others: each at its first use, once', () => {
    const b = load();
    const p = b.platform;
    p.pins.led().write(true);
    p.pins.led().write(false);
    p.watchdog.start(8000);
    p.watchdog.start(8000);
    p.clock.setWallMs(1e12);
    p.clock.setWallMs(2e12);
    p.files.size('a');
    p.files.size('b');
    expect(b.required).toEqual(['pico_cyw43', 'wdt', 'rtc', 'fs']);
    p.kv.get('a');
    p.kv.get('b');
    p.kv.set('a', '1');
    expect(b.storageReads).toBe(1);
  });
});

describe('the device bundle: never requires net, wifi, events or stream', () => {
  it('joins, delivers, rides out an access point outage and a radio reset, asking only for the modules it uses', async () => {
    const bundle = readFileSync((await buildBundle({ outfile: 'dist/lazy-agent.js' })).outfile, 'utf8');
    const cfg = testConfig('http://192.168.1.10:8080');
    const first = await firstBoot(bundle, new Map([['/config.json', new TextEncoder().encode(JSON.stringify(toSaved(cfg)))]]));
    expect(first.resets).toBe(1);
    const k = createKalumaSim({ files: first.files, program: new TextEncoder().encode(bundle) });
    k.run(bundle);
    await k.advance(60000);
    k.wifi.ap = false;
    await k.advance(10 * 60000);
    k.wifi.ap = true;
    await k.advance(5 * 60000);
    expect(k.requests.length).toBeGreaterThan(10);
    // The outage was long enough for the link ladder to power-cycle the radio.
    expect(k.wifi.resets).toBeGreaterThan(0);
    expect(k.required.filter((m) => ['net', 'wifi', 'events', 'stream'].includes(m))).toEqual([]);
    expect(k.harm()).toEqual([]);
  }, 60000);
});
