// A whole Platform built from fakes: fake time, simulated pins and Wi-Fi,
// in-memory files and settings, a log that keeps its lines.
//
// Settings (KvStore) are Kaluma's storage, whose every read overruns the C
// heap on the board: the platform allows a read only while a console command
// runs (the console host wraps each exposed command to know), records every
// read in kvReads, and throws on one made anywhere else, so a test fails even
// where the code under test swallows the throw.
import type { FileStore, KvStore, Platform, ProgramStore } from '../../src/ports/ports';
import { createSimPins } from '../../host/ports/pins';
import { createSimWifi } from '../../host/ports/wifi';
import { createSimI2c } from '../../host/ports/i2c';
import type { SimI2c } from '../../host/ports/i2c';
import type { SimWifi } from '../../host/ports/wifi';
import { noProgram } from '../../host/ports/program';
import { createNodeSockets } from '../../host/ports/sockets';
import { createMemoryFileStore } from './files';
import type { FakeTime } from './time';

export interface KvRead {
  key: string;
  /** True when a console command was running. */
  console: boolean;
}

export interface TestPlatform extends Platform {
  wifi: SimWifi;
  /** Simulated buses with no chip on them until a test attaches some. */
  i2c: SimI2c;
  kvReads: KvRead[];
  /** Reads made outside a console command: must stay empty. */
  unattendedKvReads(): string[];
  lines: string[];
  errors: string[];
  commands: Record<string, (...a: unknown[]) => unknown>;
  reboots: number;
  feeds: number;
  /** keepAlive() calls before the watchdog was started, and whether it was. */
  keepAlives: number;
  armed: boolean;
  heapUsed: number;
}

export function memoryKv(): KvStore {
  const m = new Map<string, string>();
  return { get: (k) => m.get(k), set: (k, v) => void m.set(k, v), remove: (k) => void m.delete(k) };
}

export function createTestPlatform(o: { time: FakeTime; files?: FileStore; kv?: KvStore; wifiUp?: boolean; program?: ProgramStore }): TestPlatform {
  const kv = o.kv ?? memoryKv();
  let commandsRunning = 0;
  const tp: TestPlatform = {
    clock: o.time.clock,
    timers: o.time.timers,
    pins: createSimPins({ clock: o.time.clock, random: () => 0.5 }),
    i2c: createSimI2c({ clock: o.time.clock }),
    wifi: createSimWifi({ ssid: 'field-net', up: o.wifiUp ?? true }),
    sockets: createNodeSockets(),
    kv: {
      get(k) {
        tp.kvReads.push({ key: k, console: commandsRunning > 0 });
        if (!commandsRunning) throw new Error('storage read of ' + k + ' outside a console command (on the board it overruns the C heap)');
        return kv.get(k);
      },
      set: (k, v) => kv.set(k, v),
      remove: (k) => kv.remove(k),
    },
    files: o.files ?? createMemoryFileStore(),
    program: o.program ?? noProgram,
    watchdog: { start: () => void (tp.armed = true), feed: () => void tp.feeds++, keepAlive: () => void (tp.armed || tp.keepAlives++) },
    system: {
      boardName: () => 'pico-w',
      boardUid: () => 'E6614103E7452D2F',
      memory: () => ({ heapTotal: 184312, heapUsed: tp.heapUsed, heapPeak: tp.heapUsed }),
      reboot: () => void tp.reboots++,
      seedRandom: () => undefined,
    },
    log: { info: (l) => void tp.lines.push(l), error: (l) => void tp.errors.push(l) },
    console: {
      expose(n, f) {
        tp.commands[n] = (...a) => {
          commandsRunning++;
          try {
            return f(...a);
          } finally {
            commandsRunning--;
          }
        };
      },
    },
    kvReads: [],
    unattendedKvReads: () => tp.kvReads.filter((r) => !r.console).map((r) => r.key),
    lines: [],
    errors: [],
    commands: {},
    reboots: 0,
    feeds: 0,
    keepAlives: 0,
    armed: false,
    heapUsed: 40000,
  };
  return tp;
}
