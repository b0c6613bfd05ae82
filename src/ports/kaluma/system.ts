import type * as Wdt from 'wdt';
import type { ConsoleHost, KvStore, Log, System, Watchdog } from '../ports';
import { collect } from './heap';

// Kaluma's wdt module, required when the watchdog is first armed (see kaluma.d.ts).
let wdtModule: typeof Wdt | undefined;
let wdt: Wdt.WDT | undefined;
const wdtClass = (): typeof Wdt.WDT => (wdtModule || (wdtModule = (globalThis as unknown as { require(id: 'wdt'): typeof Wdt }).require('wdt'))).WDT;

export const kalumaWatchdog: Watchdog = {
  // A second WDT just re-programs the same hardware counter.
  start: (ms) => {
    wdt = new (wdtClass())(ms);
  },
  feed: () => {
    if (wdt) wdt.feed();
  },
  // WDT.prototype.feed ignores its object: it feeds an armed watchdog and does
  // nothing to a stopped one.
  keepAlive: () => {
    if (wdt) return;
    try {
      wdtClass().prototype.feed();
    } catch {
      // No watchdog module: no watchdog to keep quiet. Never stops a caller.
    }
  },
};

export const kalumaSystem: System = {
  boardName: () => board.name,
  boardUid: () => board.uid,
  memory: () => process.memoryUsage(),
  collect,
  // There is no reset API: arm the watchdog at its minimum and stop feeding.
  reboot: () => {
    kalumaWatchdog.start(1);
    for (;;) delay(10);
  },
  seedRandom: () => {
    // Without a seed Math.random repeats every boot. The last bit of the
    // temperature sensor's reading is noise, mixed with the board id here;
    // require('rp2') would keep heap for good just to offer randomBigInt().
    let bits = 0;
    for (let i = 0; i < 32; i++) bits = (bits << 1) | (Math.round(analogRead(30) * 4096) & 1);
    const id = board.uid + millis();
    for (let i = 0; i < id.length; i++) bits = (Math.imul(bits, 31) + id.charCodeAt(i)) | 0;
    seed(bits >>> 0);
  },
};

// Kaluma 1.2.1's storage.getItem() overruns the C heap: each key is read once,
// repeats served from RAM. The global `storage` requires its module when first
// read, and looks it up again at every read: it is read once.
const cache: Record<string, string | undefined> = {};
let kv: typeof storage | undefined;
export const kalumaKv: KvStore = {
  get: (k) => {
    if (!(k in cache)) {
      const v = (kv || (kv = storage)).getItem(k);
      cache[k] = v === null ? undefined : v;
    }
    return cache[k];
  },
  set: (k, v) => {
    if (cache[k] === v) return;
    (kv || (kv = storage)).setItem(k, v);
    cache[k] = v;
  },
  remove: (k) => {
    (kv || (kv = storage)).removeItem(k);
    cache[k] = undefined;
  },
};

// Kaluma's console functions, which ignore `this`: no function of ours each.
export const kalumaLog: Log = {
  info: console.log,
  error: console.error,
};

export const kalumaConsole: ConsoleHost = {
  // The REPL evaluates typed lines in the global scope; the bundle is an
  // IIFE, so commands must be put on the global object explicitly.
  expose: (name, fn) => {
    (globalThis as unknown as Record<string, unknown>)[name] = fn;
  },
};
