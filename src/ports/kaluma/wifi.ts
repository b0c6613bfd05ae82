import type { WifiLink } from '../ports';
import { kalumaWatchdog } from './system';

// The station link straight on the Pico W's radio driver object
// (__ieee80211dev), not Kaluma's wifi module, which keeps heap for good and
// adds nothing the port uses. Every driver call runs its callback before it
// returns; on a board without the driver every call throws: down.

/** What the driver reads of a join: a string password is the key; anything else joins with no key. */
interface JoinInfo {
  ssid: string;
  password: string | null;
  security: 'OPEN' | 'WPA2_WPA_PSK';
}
/** Every driver callback: an error (never trusted here) and, for some calls, what they give. */
type Reply = (err: unknown, x?: unknown) => void;
// Declared here, not in kaluma.d.ts, so host-side tests type-check this file.
/**
 * The Pico W's radio driver object. Callback errors are unreliable (they go
 * through a C conversion that turns -1 into 0): none is trusted here.
 */
declare const __ieee80211dev: {
  /** Blocks up to 30 s (the SDK's join timeout). */
  connect(info: JoinInfo, cb: Reply): void;
  /** Gives an info object ({ ssid }) only while the link is up (associated, with an address). */
  get_connection(cb: Reply): void;
  /** Blocks until the scan ends (seconds); gives the networks seen ({ ssid }[]) or nothing. */
  scan(cb: Reply): void;
  disconnect(cb: Reply): void;
  /** Power-cycles the radio (about a second, blocking); every socket slot is dropped. */
  reset(cb: Reply): void;
};

/**
 * One driver call, as a promise of what its callback gives: for
 * get_connection whether the link is up ("no info object" means down,
 * whatever the error says), for scan the SSIDs or undefined, else nothing.
 * A throw (no driver) resolves as a callback that gives nothing would.
 */
function call(op: 'connect' | 'get_connection' | 'scan' | 'disconnect' | 'reset', join?: JoinInfo): Promise<unknown> {
  return new Promise((resolve) => {
    const done: Reply = (_err, x) => {
      if (op === 'get_connection') return resolve(!!x && !!(x as { ssid?: string }).ssid);
      let names: string[] | undefined;
      if (op === 'scan' && x) {
        const list = x as { ssid: string }[];
        names = [];
        for (let i = 0; i < list.length; i++) names.push((list[i] as { ssid: string }).ssid);
      }
      resolve(names);
    };
    try {
      // connect, scan and reset block for seconds: a watchdog an earlier
      // program left armed gets its whole period first (see Watchdog.keepAlive).
      if (op !== 'get_connection' && op !== 'disconnect') kalumaWatchdog.keepAlive();
      if (op === 'connect') __ieee80211dev.connect(join as JoinInfo, done);
      else __ieee80211dev[op](done);
    } catch {
      done(null);
    }
  });
}

const linkUp = (): Promise<boolean> => call('get_connection') as Promise<boolean>;

export const kalumaWifi: WifiLink = {
  connect: (c) =>
    // Every field the driver reads is given (an empty one would be read from
    // storage, which overruns the C heap); an open network's password is null.
    // The callback reports success even on failure: the link is checked after.
    c.ssid
      ? call('connect', { ssid: c.ssid, password: c.password || null, security: c.password ? 'WPA2_WPA_PSK' : 'OPEN' }).then(linkUp)
      : Promise.resolve(false),
  isUp: linkUp,
  scan: () => call('scan') as Promise<string[] | undefined>,
  disconnect: () => call('disconnect') as Promise<void>,
  reset: () => call('reset') as Promise<void>,
};
