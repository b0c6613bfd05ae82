// A whole Platform built from fakes: fake time, simulated pins and Wi-Fi,
// in-memory files and settings, a log that keeps its lines.
import type { FileStore, KvStore, Platform } from '../../src/ports/ports';
import { createSimPins } from '../../host/ports/pins';
import { createSimWifi } from '../../host/ports/wifi';
import type { SimWifi } from '../../host/ports/wifi';
import { createNodeSockets } from '../../host/ports/sockets';
import { createMemoryFileStore } from './files';
import type { FakeTime } from './time';

export interface TestPlatform extends Platform {
  wifi: SimWifi;
  lines: string[];
  errors: string[];
  commands: Record<string, (...a: unknown[]) => unknown>;
  reboots: number;
  feeds: number;
  heapUsed: number;
}

export function memoryKv(): KvStore {
  const m = new Map<string, string>();
  return { get: (k) => m.get(k), set: (k, v) => void m.set(k, v), remove: (k) => void m.delete(k) };
}

export function createTestPlatform(o: { time: FakeTime; files?: FileStore; kv?: KvStore; wifiUp?: boolean }): TestPlatform {
  const tp: TestPlatform = {
    clock: o.time.clock,
    timers: o.time.timers,
    pins: createSimPins({ clock: o.time.clock, random: () => 0.5 }),
    wifi: createSimWifi({ ssid: 'field-net', up: o.wifiUp ?? true }),
    sockets: createNodeSockets(),
    kv: o.kv ?? memoryKv(),
    files: o.files ?? createMemoryFileStore(),
    watchdog: { start: () => undefined, feed: () => void tp.feeds++ },
    system: {
      boardName: () => 'pico-w',
      boardUid: () => 'E6614103E7452D2F',
      memory: () => ({ heapTotal: 184312, heapUsed: tp.heapUsed, heapPeak: tp.heapUsed }),
      reboot: () => void tp.reboots++,
      seedRandom: () => undefined,
    },
    log: { info: (l) => void tp.lines.push(l), error: (l) => void tp.errors.push(l) },
    console: { expose: (n, f) => void (tp.commands[n] = f) },
    lines: [],
    errors: [],
    commands: {},
    reboots: 0,
    feeds: 0,
    heapUsed: 40000,
  };
  return tp;
}
