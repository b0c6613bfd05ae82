// Held devices' lanes (Outbox.lane), one implementation for both outboxes:
// a held device's records, moved from the head in order, wait in an outbox
// of their own, so the other devices' records behind them go on.
import type { Outbox, OutboxStats } from './types';

/**
 * Gives `box` its lanes. `open` makes (or opens again) a device's lane;
 * `found` names the lanes an earlier boot left (kept while they hold
 * records); `over` says whether the whole, lanes included, is past the
 * bound with `bytes` more (the lanes' oldest records go first then: they
 * came from the head, so they are the oldest of all, and each counts as a
 * drop of `box`).
 */
export function addLanes(box: Outbox, open: (device: string) => Outbox | undefined, found: string[], over: (s: OutboxStats, bytes: number) => boolean): Outbox {
  /** name, lane, name, lane, ... */
  const lanes: (string | Outbox)[] = [];
  const push = box.push.bind(box);
  const stats = box.stats.bind(box);

  function lane(device: string, make?: boolean): Outbox | undefined {
    for (let i = 0; i < lanes.length; i += 2) {
      if (lanes[i] !== device) continue;
      const l = lanes[i + 1] as Outbox;
      // An emptied lane is let go (its files stay for the next time); its rejections with it.
      if (make || l.stats().depth) return l;
      lanes.splice(i, 2);
      break;
    }
    const l = make ? open(device) : undefined;
    if (l) lanes.push(device, l);
    return l;
  }

  function trim(bytes: number): void {
    while (lanes.length && over(box.stats(), bytes)) {
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

  for (let i = 0; i < found.length; i++) lane(found[i] as string, true);
  box.lane = lane;
  box.lanes = () => {
    const out: string[] = [];
    for (let i = 0; i < lanes.length; i += 2) if ((lanes[i + 1] as Outbox).stats().depth) out.push(lanes[i] as string);
    return out;
  };
  box.push = (r) => {
    // About the record's frame (frame.ts): the flash outbox fits its exact size within its own part.
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
  return box;
}
