// Wi-Fi recovery ladder. Kaluma reports no lost link and its callbacks report
// success on failure, so the link is polled and recovery escalates on
// consecutive failures: retry, check, re-associate (scan first), power-cycle
// the radio, reboot. While a connection is abandoned the radio is never
// power-cycled (the driver would free its PCB twice): the ladder reboots.
import type { Clock, Log, System, Watchdog, WifiCredentials, WifiLink } from '../ports/ports';

export interface LinkStats {
  up: boolean;
  checks: number;
  associations: number;
  notVisible: number;
  resets: number;
  reboots: number;
  lastStep: string;
}

export interface Link {
  /** Makes sure the link is up before a request; false when it could not be brought up. */
  ensureUp(): Promise<boolean>;
  /** A request failed for a network reason: escalate as needed. */
  failed(): Promise<void>;
  /** A request went through: the ladder starts again from the bottom. */
  succeeded(): void;
  /** Turns the radio off (duty cycling between uploads). */
  sleep(): Promise<void>;
  stats(): LinkStats;
}

// Inlined by the build (a const enum costs no binding on the heap); LADDER publishes them.
const enum L {
  Check = 2,
  ResetAfterFailedJoins = 3,
  // eslint-disable-next-line @typescript-eslint/no-duplicate-enum-values -- two steps, one figure
  RebootAfterResets = 3,
  StepMs = 600000,
}

/**
 * Consecutive failures before each step, and the least time between two radio
 * resets or reboots in one boot: frequent link checks must not reset the radio
 * more often, and a boot must outlive the time it takes to count as healthy,
 * or an outage would add up to safe mode.
 */
export const LADDER: Record<'check' | 'resetAfterFailedJoins' | 'rebootAfterResets' | 'stepMs', number> = {
  check: L.Check, resetAfterFailedJoins: L.ResetAfterFailedJoins, rebootAfterResets: L.RebootAfterResets, stepMs: L.StepMs,
};

/**
 * The longest wait between two link checks while the link is down: a node
 * back in range delivers within this plus one join, at the price of a scan
 * per check while the access point is away.
 */
export const LINK_CHECK_MAX_MS = 10000;

export function createLink(o: {
  wifi: WifiLink;
  creds: () => WifiCredentials;
  system: System;
  log: Log;
  watchdog?: Watchdog;
  /** Connections the socket port abandoned (SocketFactory.abandoned). */
  abandoned?: () => number;
  /** Spaces resets and reboots LADDER.stepMs apart; without it they go by count alone. */
  clock?: Clock;
}): Link {
  const st: LinkStats = { up: false, checks: 0, associations: 0, notVisible: 0, resets: 0, reboots: 0, lastStep: 'none' };
  let failures = 0;
  let failedJoins = 0;
  let resetsInRow = 0;
  let asleep = false;
  let stepAt = -Infinity;

  return {
    // One function from the check to the join: each function costs heap.
    async ensureUp() {
      if (!asleep && failures < (L.Check as number) && st.up) return true;
      asleep = false;
      st.checks++;
      if (await o.wifi.isUp()) return (st.up = true);
      st.up = false;
      // Without a clock, now is NaN and nothing is spaced.
      const now = o.clock ? o.clock.uptimeMs() : NaN;
      if (failedJoins >= (L.ResetAfterFailedJoins as number) && !(now - stepAt < (L.StepMs as number))) {
        stepAt = now;
        const stale = o.abandoned ? o.abandoned() : 0;
        if (resetsInRow >= (L.RebootAfterResets as number) || stale > 0) {
          st.reboots++;
          st.lastStep = 'reboot';
          o.log.error(stale > 0
            ? 'link: ' + failedJoins + ' failed joins and ' + stale + ' abandoned connections (a radio reset would free them twice); rebooting'
            : 'link: radio reset ' + resetsInRow + ' times without a link; rebooting');
          o.system.reboot();
          return false;
        }
        st.resets++;
        resetsInRow++;
        st.lastStep = 'radio reset';
        o.log.error('link: ' + failedJoins + ' failed joins; power-cycling the radio');
        await o.wifi.reset();
        failedJoins = 0;
      }
      // Scan first: a missing access point costs a scan, not a blocking connect().
      const c = o.creds();
      let ok = false;
      if (!c.ssid) {
        st.lastStep = 'no SSID configured';
      } else {
        const seen = await o.wifi.scan();
        if (seen && seen.indexOf(c.ssid) < 0) {
          st.notVisible++;
          st.lastStep = 'SSID not visible';
          failedJoins++;
        } else {
          st.associations++;
          st.lastStep = 'associate';
          // connect() can block past the watchdog; give it the whole window.
          if (o.watchdog) o.watchdog.feed();
          ok = await o.wifi.connect(c);
          if (o.watchdog) o.watchdog.feed();
          if (ok) failedJoins = 0;
          else failedJoins++;
        }
      }
      if ((st.up = ok)) resetsInRow = 0;
      return ok;
    },
    async failed() {
      if (++failures >= (L.Check as number)) st.up = false;
      return Promise.resolve();
    },
    succeeded() {
      failures = 0;
      failedJoins = 0;
      resetsInRow = 0;
      st.up = true;
    },
    async sleep() {
      asleep = true;
      st.up = false;
      st.lastStep = 'radio off';
      await o.wifi.disconnect();
    },
    stats: () => st,
  };
}
