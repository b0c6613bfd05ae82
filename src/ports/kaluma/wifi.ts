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
/** Every driver callback: an error (never trusted here) and, for some calls, what they give. */
type Reply = (err: unknown, x?: unknown) => void;
// Declared here rather than in kaluma.d.ts so that host-side tests can
// type-check this file too.
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
    // Every field the driver reads is given: Kaluma's wifi module would fill
    // an empty one with storage.getItem, which overruns the C heap, and the
    // driver is kept on the same terms. An open network's password goes as
    // null (not a string: the driver joins with no key). The security is
    // the driver's own default for the password given. The join blocks up
    // to 30 s and its callback reports success even on failure, so the link
    // is checked afterwards.
    c.ssid
      ? call('connect', { ssid: c.ssid, password: c.password || null, security: c.password ? 'WPA2_WPA_PSK' : 'OPEN' }).then(linkUp)
      : Promise.resolve(false),
  isUp: linkUp,
  scan: () => call('scan') as Promise<string[] | undefined>,
  disconnect: () => call('disconnect') as Promise<void>,
  reset: () => call('reset') as Promise<void>,
};
