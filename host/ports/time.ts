// Node clock and timers for the simulator: uptime from a monotonic source,
// a settable "RTC" that starts at 0 like the board's.
import type { Clock, Timers } from '../../src/ports/ports';

export function createNodeTime(): { clock: Clock; timers: Timers } {
  const t0 = performance.now();
  let rtcOffset = -Date.now();
  const clock: Clock = {
    uptimeMs: () => Math.floor(performance.now() - t0),
    wallMs: () => Date.now() + rtcOffset,
    setWallMs: (ms) => {
      rtcOffset = ms - Date.now();
    },
  };
  const timers: Timers = {
    setTimeout: (cb, ms) => setTimeout(cb, ms),
    clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
  };
  return { clock, timers };
}
