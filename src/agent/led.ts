// Status LED patterns, readable across a room: connecting a fast blink,
// online dark with a flash per delivery, offline two blinks every 2 s, held
// three, safe a slow blink. The LED hangs off the Wi-Fi chip, so the pin is
// written only when its level changes, by one self-re-arming timer.
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

// A const enum is inlined by the build; a module-level const stays on the heap.
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
      // Cosmetic: never break the caller; unknown, so the next change writes again.
      level = undefined;
    }
  }

  // The one timer callback: a pulse's end, else the pattern's next step.
  // Patterns are arithmetic: a table of arrays would stay on the heap.
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
      // A flash already lit absorbs the pulse: no LED traffic queued on the radio bus.
      if (mode !== 'online' || timer !== undefined) return;
      set(true);
      timer = o.timers.setTimeout(run, K.PulseMs);
    },
    stop(): void {
      mode = undefined;
      led.show('off');
    },
  };
  return led;
}
