// Wall-clock time for a board that boots at 1970: taken from the service's
// Date header, written to the RTC, and used to date this boot's readings.
import type { Clock } from '../ports/ports';
import { parseHttpDate } from '../service/http-date';

export interface TimeKeeper {
  /** True once the RTC was set from a trustworthy source in this boot. */
  known(): boolean;
  /** Feeds a Date header; returns true when it was usable. */
  fromHttpDate(header: string | undefined): boolean;
  /** Wall ms for a moment of this boot's uptime, when known. */
  wallAt(uptimeMs: number): number | undefined;
}

// A server before 2020 or after 2100 is misconfigured: ignored. (A const enum: no binding on the heap.)
const enum T {
  MinMs = 1577836800000,
  MaxMs = 4102444800000,
}

export function createTimeKeeper(o: { clock: Clock }): TimeKeeper {
  let offset: number | undefined;
  return {
    known: () => offset !== undefined,
    fromHttpDate(header) {
      const ms = header ? parseHttpDate(header) : undefined;
      if (ms === undefined || ms < (T.MinMs as number) || ms > (T.MaxMs as number)) return false;
      const up = o.clock.uptimeMs();
      // The header has 1 s resolution: only re-set the RTC on a real drift.
      if (offset === undefined || Math.abs(up + offset - ms) > 2000) {
        offset = ms - up;
        o.clock.setWallMs(ms);
      }
      return true;
    },
    wallAt: (uptimeMs) => (offset === undefined ? undefined : uptimeMs + offset),
  };
}
