// Kaluma 1.2.1's timer globals as the device has them, with the defects a
// program can walk into (docs/architecture.md, The ports and the runtime's defects), for code that
// runs against Kaluma itself (src/ports/kaluma, the device bundle):
// - ids come from one counter shared by every handle; clearTimeout() casts
//   the id to a signed int, so from 2^31 on it finds nothing;
// - clearTimeout()/clearInterval() of a one-shot timer whose callback is
//   running or has run breaks the event loop on the board: here it is
//   recorded in `violations`, which every test expects to stay empty.
// Driver events (sockets) use after(), which takes no id, as in the firmware.

interface Handle {
  id: number;
  at: number;
  cb: () => void;
  every: number;
  kind: 'timeout' | 'interval' | 'driver';
  state: 'armed' | 'running' | 'done';
}

export interface KalumaTimers {
  globals: {
    millis: () => number;
    setTimeout: (cb: unknown, ms: unknown) => number;
    setInterval: (cb: unknown, ms: unknown) => number;
    clearTimeout: (id: unknown) => void;
    clearInterval: (id: unknown) => void;
  };
  /** What would hurt the board, one line each. */
  violations: string[];
  /** Exceptions thrown by callbacks (printed on the board; the loop goes on). */
  thrown: string[];
  now(): number;
  /** Kaluma handle ids taken so far. */
  idsTaken(): number;
  /** Timers and intervals armed (driver events not counted). */
  armed(): number;
  /** A driver event: runs at now + ms, takes no id. */
  after(ms: number, cb: () => void): void;
  /** The board reset: nothing fires any more. */
  halt(): void;
  /** Moves time by ms, firing what falls due in order; `between` runs after each callback. */
  advance(ms: number, between?: () => Promise<void>): Promise<void>;
  /**
   * Fires what is due now, as the firmware's loop does before it reads the
   * next console line (km_io_run: timers, then the terminal).
   */
  fireDue(): void;
}

export function createKalumaTimers(o: { firstId?: number } = {}): KalumaTimers {
  let now = 0;
  let nextId = o.firstId ?? 1;
  let taken = 0;
  let seq = 0;
  const live: Handle[] = [];
  const byId = new Map<number, Handle>();
  const violations: string[] = [];
  const thrown: string[] = [];

  let halted = false;
  const arm = (cb: unknown, ms: unknown, kind: 'timeout' | 'interval'): number => {
    if (typeof cb !== 'function' || typeof ms !== 'number') throw new TypeError('set' + kind + '(cb, ms): ms must be a number');
    if (halted) return 0;
    const id = nextId++ >>> 0;
    taken++;
    const h: Handle = { id, at: now + Math.max(0, ms), cb: cb as () => void, every: Math.max(1, ms), kind, state: 'armed' };
    live.push(h);
    byId.set(id, h);
    return id;
  };
  const clear = (id: unknown, what: string): void => {
    if (typeof id !== 'number') throw new TypeError(what + ': id must be a number');
    // The firmware converts the id to a signed int before the lookup.
    const h = id >= 2 ** 31 ? undefined : byId.get(id);
    if (!h) return;
    if (h.kind === 'timeout' && h.state !== 'armed') {
      violations.push(what + '(' + id + ') of a one-shot timer whose callback ' + (h.state === 'running' ? 'is running' : 'already ran') + ': the event loop breaks');
      return;
    }
    h.state = 'done';
    byId.delete(id);
    const i = live.indexOf(h);
    if (i >= 0) live.splice(i, 1);
  };

  /** Fires the earliest handle due by `end`, moving time to it; false when none is. */
  const fireOne = (end: number): boolean => {
    let due: Handle | undefined;
    for (const h of live) if (h.at <= end && (!due || h.at < due.at)) due = h;
    if (!due) return false;
    now = Math.max(now, due.at);
    if (due.kind === 'interval') due.at += due.every;
    else live.splice(live.indexOf(due), 1);
    due.state = 'running';
    try {
      due.cb();
    } catch (e) {
      thrown.push(String(e));
      // The firmware then closes the handle itself, interval or not.
      if (due.kind === 'interval') {
        if ((due.state as Handle['state']) === 'done') violations.push('an interval cleared inside its own callback that then threw: its handle is closed twice');
        if (live.includes(due)) live.splice(live.indexOf(due), 1);
        byId.delete(due.id);
        due.state = 'done';
      }
    }
    if (due.kind !== 'interval' || !live.includes(due)) due.state = 'done';
    else due.state = 'armed';
    return true;
  };

  return {
    globals: {
      millis: () => now,
      setTimeout: (cb, ms) => arm(cb, ms, 'timeout'),
      setInterval: (cb, ms) => arm(cb, ms, 'interval'),
      clearTimeout: (id) => clear(id, 'clearTimeout'),
      clearInterval: (id) => clear(id, 'clearInterval'),
    },
    violations,
    thrown,
    now: () => now,
    idsTaken: () => taken,
    armed: () => live.filter((h) => h.kind !== 'driver').length,
    halt() {
      live.length = 0;
      halted = true;
    },
    after(ms, cb) {
      if (halted) return;
      live.push({ id: -1 - seq++, at: now + Math.max(0, ms), cb, every: 0, kind: 'driver', state: 'armed' });
    },
    async advance(ms, between = async () => undefined) {
      const end = now + ms;
      while (fireOne(end)) await between();
      now = end;
      await between();
    },
    fireDue() {
      while (fireOne(now));
    },
  };
}
