import { WiFi } from 'wifi';
import type { WifiLink } from '../ports';

// One instance only: each new WiFi() re-points the driver's hooks to itself.
let wifi: WiFi | undefined;
const radio = (): WiFi => {
  if (!wifi) wifi = new WiFi();
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
  connect: (c) =>
    new Promise<void>((resolve) => {
      try {
        // Blocks up to 30 s. The callback reports success even on failure,
        // so the link is checked afterwards.
        radio().connect({ ssid: c.ssid, password: c.password, enforce: true }, () => resolve());
      } catch {
        resolve();
      }
    }).then(linkUp),
  isUp: linkUp,
  scan: () =>
    new Promise((resolve) => {
      try {
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
        radio().reset(() => resolve());
      } catch {
        resolve();
      }
    }),
};
