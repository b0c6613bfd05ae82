import type * as Wifi from 'wifi';
import type { WifiLink } from '../ports';
import { kalumaWatchdog } from './system';

// One instance only: each new WiFi() re-points the driver's hooks to itself.
// Kaluma's wifi module is required with it, at the first use of the radio
// (see kaluma.d.ts): it keeps about 3.9 KB of heap from then on.
let wifi: Wifi.WiFi | undefined;
const radio = (): Wifi.WiFi => {
  if (!wifi) wifi = new ((globalThis as unknown as { require(id: 'wifi'): typeof Wifi }).require('wifi').WiFi)();
  return wifi;
};

function linkUp(): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      // Callback errors are unreliable; "no info object" means down.
      radio().getConnection((_err, info) => resolve(!!info && !!info.ssid));
    } catch {
      resolve(false);
    }
  });
}

export const kalumaWifi: WifiLink = {
  connect: (c) => {
    // Kaluma's connect() fills each empty field (ssid, password, security)
    // with storage.getItem, which overruns the C heap: every field is given.
    // An open network's password goes as `true`: not empty for wifi.js, not
    // a string for the driver, which then joins with no key, as with none.
    // The security is the driver's own default for the password given.
    if (!c.ssid) return Promise.resolve(false);
    return new Promise<void>((resolve) => {
      try {
        // Blocks up to 30 s. The callback reports success even on failure,
        // so the link is checked afterwards. A watchdog an earlier program
        // left armed gets its whole period first (see Watchdog.keepAlive).
        kalumaWatchdog.keepAlive();
        radio().connect({ ssid: c.ssid, password: c.password || true, security: c.password ? 'WPA2_WPA_PSK' : 'OPEN', enforce: true }, () => resolve());
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
        radio().scan((_err, list) => resolve(list ? list.map((e) => e.ssid) : undefined));
      } catch {
        resolve(undefined);
      }
    }),
  disconnect: () =>
    new Promise((resolve) => {
      try {
        radio().disconnect(() => resolve());
      } catch {
        resolve();
      }
    }),
  reset: () =>
    new Promise((resolve) => {
      try {
        kalumaWatchdog.keepAlive();
        radio().reset(() => resolve());
      } catch {
        resolve();
      }
    }),
};
