// Wi-Fi recovery ladder. Kaluma sends no event when the access point drops
// us, its callbacks report success on failure, and connect() blocks up to
// 30 s, so the link is polled and recovery escalates step by step on
// consecutive failures:
//   retry the request -> check the link -> re-associate (scan first; connect
//   only when the SSID is visible, so a missing AP costs a scan, not 30 s)
//   -> power-cycle the radio -> reboot.
// While a connection is abandoned (Kaluma could not close it safely) the
// radio is never power-cycled: the driver would close it and free its PCB a
// second time. The ladder reboots instead.
// Each step is counted. The outbox is on flash, so a reboot loses nothing.
import type { Log, System, Watchdog, WifiCredentials, WifiLink } from '../ports/ports';

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

/** Consecutive failures before each step. */
export const LADDER = { check: 2, resetAfterFailedJoins: 3, rebootAfterResets: 3 };

export function createLink(o: {
  wifi: WifiLink;
  creds: () => WifiCredentials;
  system: System;
  log: Log;
  watchdog?: Watchdog;
  /** Connections the socket port abandoned (SocketFactory.abandoned). */
  abandoned?: () => number;
}): Link {
  const st: LinkStats = { up: false, checks: 0, associations: 0, notVisible: 0, resets: 0, reboots: 0, lastStep: 'none' };
  let failures = 0;
  let failedJoins = 0;
  let resetsInRow = 0;
  let asleep = false;

  async function join(): Promise<boolean> {
    const c = o.creds();
    if (!c.ssid) {
      st.lastStep = 'no SSID configured';
      return false;
    }
    const seen = await o.wifi.scan();
    if (seen && seen.indexOf(c.ssid) < 0) {
      st.notVisible++;
      st.lastStep = 'SSID not visible';
      failedJoins++;
      return false;
    }
    st.associations++;
    st.lastStep = 'associate';
    // connect() can block past the watchdog on the RP2040; a reset there is
    // the intended recovery, so give it the whole window.
    if (o.watchdog) o.watchdog.feed();
    const ok = await o.wifi.connect(c);
    if (o.watchdog) o.watchdog.feed();
    if (ok) {
      failedJoins = 0;
      return true;
    }
    failedJoins++;
    return false;
  }

  async function bringUp(): Promise<boolean> {
    st.checks++;
    if (await o.wifi.isUp()) return (st.up = true);
    st.up = false;
    if (failedJoins >= LADDER.resetAfterFailedJoins) {
      const stale = o.abandoned ? o.abandoned() : 0;
      if (resetsInRow >= LADDER.rebootAfterResets || stale > 0) {
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
    st.up = await join();
    if (st.up) resetsInRow = 0;
    return st.up;
  }

  return {
    async ensureUp() {
      if (asleep || failures >= LADDER.check || !st.up) {
        asleep = false;
        return bringUp();
      }
      return true;
    },
    async failed() {
      failures++;
      if (failures >= LADDER.check) st.up = false;
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
