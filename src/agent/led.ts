// Status LED patterns, readable across a room without a console.
//
//   mode        pattern                                  period
//   off         dark                                     -
//   connecting  fast blink: 100 ms on, 100 ms off        200 ms
//   online      dark; one 50 ms flash per pulse()        -
//   offline     double blink: 100 on, 100 off, 100 on,   2 s
//               then 1700 ms off (buffering readings)
//   held        triple blink: 100 on, 100 off three      2 s
//               times, then 1500 ms off (a device held:
//               the service refuses its key or device)
//   safe        slow blink: 1 s on, 1 s off              2 s
//
// On the W boards the LED hangs off the Wi-Fi chip, so every level change is
// a bus transaction to the radio: the pin is written only when the level
// really changes, and one self-re-arming timer drives the pattern (no
// setInterval, no overlapping timers).
import type { DigitalOut, TimerId, Timers } from '../ports/ports';

export type LedMode = 'off' | 'connecting' | 'online' | 'offline' | 'held' | 'safe';

export interface Led {
  /** Switches pattern; showing the current mode again keeps its phase. */
  show(mode: LedMode): void;
  /** One short flash per delivered write; only in 'online' (other patterns would hide it). */
  pulse(): void;
  /** Dark, no timer left. The pin stays open: whoever opened it closes it. */
  stop(): void;
}

// A const enum, put in place by the build: a module-level const would be a
// binding on the heap for good.
const enum K {
  PulseMs = 50,
}
export const PULSE_MS: number = K.PulseMs;

export function createLed(o: { out: DigitalOut; timers: Timers }): Led {
  let mode: LedMode | undefined;
  // Unknown until the first write: the LED may be lit from before we started.
  let level: boolean | undefined;
  let timer: TimerId | undefined;
  let step = 0;

  function set(high: boolean): void {
    if (level === high) return;
    try {
      o.out.write(high);
      level = high;
    } catch {
      // Cosmetic: a failed write must not break the caller or the pattern.
      // The level stays unknown so the next change writes again.
      level = undefined;
    }
  }

  // The one timer callback: the end of a pulse ('online'), else the pattern's
  // next step. The patterns of the table above are arithmetic, not arrays:
  // an object of arrays would be kept on the heap for good.
  function run(): void {
    timer = undefined;
    if (mode === 'online') return set(false);
    set(step % 2 === 0);
    // Blinks of 100 ms, then the rest of 2 s dark: two for offline, three for held.
    const n = mode === 'offline' ? 4 : mode === 'held' ? 6 : 2;
    const ms = mode === 'safe' ? 1000 : n > 2 && step === n - 1 ? 2000 - 100 * (n - 1) : 100;
    step = (step + 1) % n;
    timer = o.timers.setTimeout(run, ms);
  }

  const led: Led = {
    show(m: LedMode): void {
      if (m === mode) return;
      mode = m;
      if (timer !== undefined) o.timers.clearTimeout(timer);
      timer = undefined;
      step = 0;
      if (m === 'off' || m === 'online') set(false);
      else run();
    },
    pulse(): void {
      // A flash already lit absorbs the pulse: bursts of writes stay one
      // flash instead of queueing LED traffic on the radio bus.
      if (mode !== 'online' || timer !== undefined) return;
      set(true);
      timer = o.timers.setTimeout(run, K.PulseMs);
    },
    stop(): void {
      // Whatever the mode: no timer left, and dark.
      mode = undefined;
      led.show('off');
    },
  };
  return led;
}
