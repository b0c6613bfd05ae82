import type * as Rtc from 'rtc';
import type { Clock, TimerId, Timers } from '../ports';

// Kaluma's timer globals, declared here so that host-side tests type-check
// this file against them rather than against Node's.
declare function millis(): number;
declare function setInterval(cb: () => void, ms: number): number;
declare function clearInterval(id: number): void;

// Kaluma's rtc module, required when the clock is first set (see kaluma.d.ts).
let rtc: typeof Rtc | undefined;

export const kalumaClock: Clock = {
  // Kaluma's own functions, which ignore `this`: no function of ours each.
  uptimeMs: millis,
  wallMs: Date.now,
  setWallMs: (ms) => (rtc || (rtc = (globalThis as unknown as { require(id: 'rtc'): typeof Rtc }).require('rtc'))).setTime(ms),
};

// Kaluma 1.2.1's clearTimeout() of a one-shot timer from its own callback
// breaks the event loop for good, and from handle id 2^31 on it finds nothing
// (docs/architecture.md, The ports and the runtime's defects). So no program
// timer is a Kaluma timer: they live in the list below, served by ONE Kaluma
// interval, cleared only from its own callback, that ticks while anything is
// pending, and a new id is taken only when the list goes from empty to busy.

const enum T {
  /** Tick of the interval: the resolution of every timer (inlined by the bundler). */
  TICK_MS = 10,
}
/** For the tests. */
export const TICK_MS: number = T.TICK_MS;

// A timer; its properties get short names in the device build (scripts/build/mangle.ts).
interface Entry {
  at_: number;
  run_: () => void;
  /** Arming order: ties fire in it, and a timer armed by a callback waits for the next tick. */
  order_: number;
}

const list: Entry[] = [];
let armed = 0;
let ticker = -1;
// Ticks to skip before looking at the clock again (a tick never comes early):
// a millis() call allocates a heap number once uptime passes 2^28 ms.
let skip = 0;

function tick(): void {
  if (skip > 0) {
    skip--;
    return;
  }
  const now = millis();
  const limit = armed;
  for (;;) {
    let due: Entry | undefined;
    for (let i = 0; i < list.length; i++) {
      const e = list[i] as Entry;
      if (e.at_ <= now && e.order_ < limit && (!due || e.at_ < due.at_ || (e.at_ === due.at_ && e.order_ < due.order_))) due = e;
    }
    if (!due) break;
    list.splice(list.indexOf(due), 1);
    try {
      due.run_();
    } catch (e) {
      // Kaluma prints a callback's exception and goes on; so do we, without
      // letting it reach Kaluma (an interval whose callback throws is closed twice).
      console.error('timer: ' + String(e));
    }
  }
  let first = Infinity;
  for (let i = 0; i < list.length; i++) if ((list[i] as Entry).at_ < first) first = (list[i] as Entry).at_;
  skip = first === Infinity ? 0 : Math.floor((first - now) / T.TICK_MS) - 1;
  // Keep the arming counter a small integer (a larger one is a heap number).
  if (armed > 0x4000000) {
    let min = armed;
    for (let i = 0; i < list.length; i++) if ((list[i] as Entry).order_ < min) min = (list[i] as Entry).order_;
    for (let i = 0; i < list.length; i++) (list[i] as Entry).order_ -= min;
    armed -= min;
  }
  if (!list.length && ticker >= 0) {
    clearInterval(ticker);
    ticker = -1;
  }
}

export const kalumaTimers: Timers = {
  setTimeout(cb, ms) {
    const e: Entry = { at_: millis() + (ms > 0 ? ms : 0), run_: cb, order_: armed++ };
    list.push(e);
    skip = 0;
    if (ticker < 0) ticker = setInterval(tick, T.TICK_MS);
    return e;
  },
  clearTimeout(id: TimerId) {
    const i = list.indexOf(id as Entry);
    if (i >= 0) list.splice(i, 1);
  },
};

/**
 * Runs cb at the event loop's next turn, before it reads the next console
 * line: Kaluma's own one-shot timer, never cleared (so the runtime's
 * clear-inside-its-callback defect cannot bite), not the ticker above.
 */
export function nextTurn(cb: () => void): void {
  setTimeout(cb, 0);
}
