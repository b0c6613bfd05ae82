// A simulated station link with the failure modes of the real one: the
// access point can vanish, the link can drop silently, and joins fail while
// the AP is away. Connect costs simulated time only through the caller.
import type { WifiLink } from '../../src/ports/ports';

export interface SimWifi extends WifiLink {
  /** Makes the access point (in)visible; hiding it also drops the link. */
  setAp(visible: boolean): void;
  /** Drops the link without any event, as the real driver does. */
  drop(): void;
  counts: { connects: number; scans: number; resets: number; disconnects: number };
}

export function createSimWifi(o: { ssid: string; up?: boolean }): SimWifi {
  let ap = true;
  let up = o.up ?? false;
  const counts = { connects: 0, scans: 0, resets: 0, disconnects: 0 };
  return {
    counts,
    setAp(v) {
      ap = v;
      if (!v) up = false;
    },
    drop() {
      up = false;
    },
    connect: async (c) => {
      counts.connects++;
      up = ap && c.ssid === o.ssid;
      return up;
    },
    isUp: async () => up,
    scan: async () => {
      counts.scans++;
      return ap ? [o.ssid, 'neighbour-net'] : ['neighbour-net'];
    },
    disconnect: async () => {
      counts.disconnects++;
      up = false;
    },
    reset: async () => {
      counts.resets++;
      up = false;
    },
  };
}
