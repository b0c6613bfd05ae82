import type { WifiLink } from '../ports';
import { kalumaWatchdog } from './system';

// The station link straight on the Pico W's radio driver object
// (global.__ieee80211dev, made by module_pico_cyw43.c), not through Kaluma's
// wifi module: that one is an EventEmitter that keeps about 3.8 KB of heap
// once required and adds nothing the port uses (its events, its storage
// fallbacks). Every driver call runs its callback before it returns. On a
// board without the driver every call throws (a ReferenceError): down.

/** What the driver reads of a join: a string password is the key; anything else joins with no key. */
interface JoinInfo {
  ssid: string;
  password: string | null;
  security: 'OPEN' | 'WPA2_WPA_PSK';
}
// Declared here rather than in kaluma.d.ts so that host-side tests can
// type-check this file too.
/**
 * The Pico W's radio driver object. Callback errors are unreliable (they go
 * through a C conversion that turns -1 into 0): none is trusted here.
 */
declare const __ieee80211dev: {
  /** Blocks up to 30 s (the SDK's join timeout). */
  connect(info: JoinInfo, cb: (err: unknown) => void): void;
  /** Gives an info object only while the link is up (associated, with an address). */
  get_connection(cb: (err: unknown, info?: { ssid?: string }) => void): void;
  /** Blocks until the scan ends (seconds). */
  scan(cb: (err: unknown, list?: { ssid: string }[]) => void): void;
  disconnect(cb: (err: unknown) => void): void;
  /** Power-cycles the radio (about a second, blocking); every socket slot is dropped. */
  reset(cb: (err: unknown) => void): void;
};

function linkUp(): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      // "No info object" means down, whatever the error says.
      __ieee80211dev.get_connection((_err, info) => resolve(!!info && !!info.ssid));
    } catch {
      resolve(false);
    }
  });
}

export const kalumaWifi: WifiLink = {
  connect: (c) => {
    // Every field the driver reads is given: Kaluma's wifi module would fill
    // an empty one with storage.getItem, which overruns the C heap, and the
    // driver is kept on the same terms. An open network's password goes as
    // null (not a string: the driver joins with no key). The security is
    // the driver's own default for the password given.
    if (!c.ssid) return Promise.resolve(false);
    return new Promise<void>((resolve) => {
      try {
        // Blocks up to 30 s. The callback reports success even on failure,
        // so the link is checked afterwards. A watchdog an earlier program
        // left armed gets its whole period first (see Watchdog.keepAlive).
        kalumaWatchdog.keepAlive();
        __ieee80211dev.connect({ ssid: c.ssid, password: c.password || null, security: c.password ? 'WPA2_WPA_PSK' : 'OPEN' }, () => resolve());
      } catch {
        resolve();
      }
    }).then(linkUp);
  },
  isUp: linkUp,
  scan: () =>
    new Promise((resolve) => {
      try {
        kalumaWatchdog.keepAlive();
        __ieee80211dev.scan((_err, list) => resolve(list ? list.map((e) => e.ssid) : undefined));
      } catch {
        resolve(undefined);
      }
    }),
  disconnect: () =>
    new Promise((resolve) => {
      try {
        __ieee80211dev.disconnect(() => resolve());
      } catch {
        resolve();
      }
    }),
  reset: () =>
    new Promise((resolve) => {
      try {
        kalumaWatchdog.keepAlive();
        __ieee80211dev.reset(() => resolve());
      } catch {
        resolve();
      }
    }),
};
