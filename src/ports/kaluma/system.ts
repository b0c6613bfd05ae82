import { WDT } from 'wdt';
import type { ConsoleHost, KvStore, Log, System, Watchdog } from '../ports';

let wdt: WDT | undefined;

export const kalumaWatchdog: Watchdog = {
  // A second WDT just re-programs the same hardware counter.
  start: (ms) => {
    wdt = new WDT(ms);
  },
  feed: () => {
    if (wdt) wdt.feed();
  },
};

export const kalumaSystem: System = {
  boardName: () => board.name,
  boardUid: () => board.uid,
  memory: () => process.memoryUsage(),
  // There is no reset API: arm the watchdog at its minimum and stop feeding.
  reboot: () => {
    wdt = new WDT(1);
    for (;;) delay(10);
  },
  seedRandom: () => {
    // Without a seed Math.random repeats its sequence every boot. The last
    // bit of the temperature sensor's 12-bit reading is noise: 32 reads (1 ms
    // each) make the seed, mixed with the board id. require('rp2') would keep
    // 6 KB of heap for good just to offer randomBigInt().
    let bits = 0;
    for (let i = 0; i < 32; i++) bits = (bits << 1) | (Math.round(analogRead(30) * 4096) & 1);
    const id = board.uid + millis();
    for (let i = 0; i < id.length; i++) bits = (Math.imul(bits, 31) + id.charCodeAt(i)) | 0;
    seed(bits >>> 0);
  },
};

// storage getItem over-reads past its buffer (C-heap risk): read each key
// once and serve repeats from RAM.
const cache: Record<string, string | undefined> = {};
export const kalumaKv: KvStore = {
  get: (k) => {
    if (!(k in cache)) {
      const v = storage.getItem(k);
      cache[k] = v === null ? undefined : v;
    }
    return cache[k];
  },
  set: (k, v) => {
    if (cache[k] === v) return;
    storage.setItem(k, v);
    cache[k] = v;
  },
  remove: (k) => {
    storage.removeItem(k);
    cache[k] = undefined;
  },
};

export const kalumaLog: Log = {
  info: (l) => console.log(l),
  error: (l) => console.error(l),
};

export const kalumaConsole: ConsoleHost = {
  // The REPL evaluates typed lines in the global scope; the bundle is an
  // IIFE, so commands must be put on the global object explicitly.
  expose: (name, fn) => {
    (globalThis as unknown as Record<string, unknown>)[name] = fn;
  },
};
