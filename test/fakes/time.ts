// A fake clock and timer queue built from the Clock and Timers ports.
// advance() moves time forward firing due timers in deadline order and lets
// promise callbacks run between them, so async code driven by timers
// progresses as it would on the board.
import type { Clock, TimerId, Timers } from '../../src/ports/ports';

interface Pending {
  id: number;
  at: number;
  cb: () => void;
}

export interface FakeTime {
  clock: Clock;
  timers: Timers;
  now(): number;
  wall(): number;
  /** Moves time by ms, firing every timer that falls due, in order. */
  advance(ms: number, settle?: () => Promise<void>): Promise<void>;
  /** advance() for code with no promises in between: fires due timers synchronously. */
  advanceSync(ms: number): void;
  /** Moves the clock without firing anything, as a blocking call freezes the board's loop. */
  jump(ms: number): void;
  /** Number of timers waiting. */
  pending(): number;
}

export const flushPromises = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

export function createFakeTime(startMs = 0): FakeTime {
  let now = startMs;
  let wallOffset = 0;
  let nextId = 1;
  let queue: Pending[] = [];
  const clock: Clock = {
    uptimeMs: () => now,
    wallMs: () => now + wallOffset,
    setWallMs: (ms) => {
      wallOffset = ms - now;
    },
  };
  const timers: Timers = {
    setTimeout(cb, ms) {
      const t = { id: nextId++, at: now + Math.max(0, ms), cb };
      queue.push(t);
      return t.id;
    },
    clearTimeout(id: TimerId) {
      queue = queue.filter((t) => t.id !== id);
    },
  };
  /** The earliest timer due by `end` (ties in arming order). */
  const next = (end: number): Pending | undefined => {
    let due: Pending | undefined;
    for (const t of queue) if (t.at <= end && (!due || t.at < due.at || (t.at === due.at && t.id < due.id))) due = t;
    return due;
  };
  /** Fires the earliest timer due by `end`, moving the clock to it; false when none is due. */
  const fireNext = (end: number): boolean => {
    const due = next(end);
    if (!due) return false;
    queue = queue.filter((t) => t !== due);
    now = Math.max(now, due.at);
    due.cb();
    return true;
  };
  return {
    clock,
    timers,
    now: () => now,
    wall: () => now + wallOffset,
    pending: () => queue.length,
    jump(ms) {
      now += ms;
    },
    advanceSync(ms) {
      const end = now + ms;
      while (fireNext(end));
      now = end;
    },
    async advance(ms, settle = flushPromises) {
      const end = now + ms;
      await settle();
      while (fireNext(end)) await settle();
      now = end;
    },
  };
}
