import { setTime } from 'rtc';
import type { Clock, Timers } from '../ports';

export const kalumaClock: Clock = {
  uptimeMs: () => millis(),
  wallMs: () => Date.now(),
  setWallMs: (ms) => setTime(ms),
};

export const kalumaTimers: Timers = {
  // Kaluma requires a numeric delay and does not forward extra arguments.
  setTimeout: (cb, ms) => setTimeout(cb, ms > 0 ? ms : 0),
  // clearTimeout throws TypeError for anything but a number.
  clearTimeout: (id) => {
    if (typeof id === 'number') clearTimeout(id);
  },
};
