// Held devices' lanes: a held device's records wait in an outbox of their own
// so the others go on. Cold code, loaded at the first hold: a board whose
// service never refuses carries none of it.
import type { DeviceConfig } from '../model';
import type { Outbox, OutboxRecord } from '../queue/types';

/** The next record to send and the queue it heads; 0: pick again; undefined: nothing can go now. */
export type Picked = { q: Outbox; head: OutboxRecord } | 0 | undefined;

/** The uplink's choice with lanes (see heldPicker). */
export type Picker = (now: number) => Picked;

/**
 * Gives `box` its lanes (lane(), lanes(), and push(), stats() and
 * setMaxBytes() that count them), then returns the uplink's choice of the
 * next record: a lane's head first (the oldest of those whose device does
 * not wait), else the outbox's head. An outbox head whose device waits, or
 * still has a lane, is moved to that device's lane while any device can be
 * sent to.
 */
export function heldPicker(box: Outbox, devices: DeviceConfig[], waits: (device: string, now: number) => boolean): Picker {
  addLanes(box);
  const lane = box.lane as NonNullable<Outbox['lane']>;
  return (now) => {
    let best: { q: Outbox; head: OutboxRecord } | undefined;
    const names = (box.lanes as NonNullable<Outbox['lanes']>)();
    for (let i = 0; i < names.length; i++) {
      const n = names[i] as string;
      const l = waits(n, now) ? undefined : lane(n);
      const h = l ? l.peek(1)[0] : undefined;
      if (l && h && (!best || h.seq < best.head.seq)) best = { q: l, head: h };
    }
    if (best) return best;
    const head = box.peek(1)[0];
    if (!head || (!waits(head.device, now) && names.indexOf(head.device) < 0)) return head ? { q: box, head } : undefined;
    let free = false;
    for (let i = 0; i < devices.length && !free; i++) free = !waits((devices[i] as DeviceConfig).name, now);
    const l = free ? lane(head.device, true) : undefined;
    if (!l || !l.push(head)) return undefined;
    box.ack(1);
    return 0;
  };
}

/**
 * The lanes of `box`: the ones an earlier boot left are opened again (kept
 * while they hold records). When the whole is past the bound, the lanes'
 * oldest records go first (they came from the head, so they are the oldest
 * of all), each counted as a drop of `box`. An emptied lane is let go (its
 * files stay for the next time), its rejections with it.
 */
function addLanes(box: Outbox): void {
  if (box.lane || !box.openLane || !box.full) return;
  const open = box.openLane.bind(box);
  const full = box.full.bind(box);
  /** name, lane, name, lane, ... */
  const lanes: (string | Outbox)[] = [];
  const push = box.push.bind(box);
  const stats = box.stats.bind(box);

  function lane(device: string, make?: boolean): Outbox | undefined {
    for (let i = 0; i < lanes.length; i += 2) {
      if (lanes[i] !== device) continue;
      const l = lanes[i + 1] as Outbox;
      if (make || l.stats().depth) return l;
      lanes.splice(i, 2);
      break;
    }
    const l = make ? open(device) : undefined;
    if (l) lanes.push(device, l);
    return l;
  }

  function trim(bytes: number): void {
    while (lanes.length && full(box.stats(), bytes)) {
      let at = -1;
      let seq = Infinity;
      for (let i = 1; i < lanes.length; i += 2) {
        const h = (lanes[i] as Outbox).peek(1)[0];
        if (h && h.seq < seq) {
          seq = h.seq;
          at = i;
        }
      }
      if (at < 0) return;
      (lanes[at] as Outbox).ack(1);
      // undrop of a negative count: one more reading dropped, saved with the next ack.
      box.undrop(-1);
    }
  }

  const found = box.found || [];
  for (let i = 0; i < found.length; i++) lane(found[i] as string, true);
  box.lane = lane;
  box.lanes = () => {
    const out: string[] = [];
    for (let i = 0; i < lanes.length; i += 2) if ((lanes[i + 1] as Outbox).stats().depth) out.push(lanes[i] as string);
    return out;
  };
  box.push = (r) => {
    // About the record's frame (src/queue/frame.ts): the flash outbox fits its exact size within its own part.
    trim(r.payload.length + r.device.length + 32);
    return push(r);
  };
  box.stats = () => {
    const s = stats();
    for (let i = 1; i < lanes.length; i += 2) {
      const l = (lanes[i] as Outbox).stats();
      s.depth += l.depth;
      s.bytes += l.bytes;
      s.rejected += l.rejected;
    }
    return s;
  };
  if (box.setMaxBytes) {
    const resize = box.setMaxBytes.bind(box);
    box.setMaxBytes = (n) => {
      resize(n);
      trim(0);
    };
  }
}
