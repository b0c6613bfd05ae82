// The outbox in RAM: same contract as the flash one, bounded by a record
// count, lost on reboot. For tests, and for the agent when the file store is
// unusable (readings still flow while the link is up).

import { encodeFrame } from './frame';
import type { Outbox, OutboxRecord, OutboxStats } from './types';

export interface MemoryOutboxOptions {
  /** Records kept; the oldest are dropped beyond it. */
  maxRecords: number;
  /** First value of nextSeq(). Default 1. */
  firstSeq?: number;
  /** A held device's lane: no lanes of its own. */
  lane?: boolean;
}

export function createMemoryOutbox(o: MemoryOutboxOptions): Outbox {
  const q: OutboxRecord[] = [];
  /** Each record's bytes in the flash outbox's framed form, so stats compare across the two. */
  const sz: number[] = [];
  let bytes = 0;
  let seq = o.firstSeq ?? 1;
  let dropped = 0;
  let rejected = 0;
  let lastReject: string | undefined;
  /** Held devices' lanes (Outbox.lane): name, outbox, ... */
  const lanes: (string | Outbox)[] = [];

  /** Records of the lanes; drops the lanes' oldest while the whole is at its bound. */
  function inLanes(room: number): number {
    let n = 0;
    for (let i = 1; i < lanes.length; i += 2) n += (lanes[i] as Outbox).stats().depth;
    while (n && q.length + n > room) {
      let at = 1;
      for (let i = 3; i < lanes.length; i += 2) {
        const h = (lanes[i] as Outbox).peek(1)[0];
        const a = (lanes[at] as Outbox).peek(1)[0];
        if (h && (!a || h.seq < a.seq)) at = i;
      }
      const l = lanes[at] as Outbox;
      if (!l.stats().depth) {
        lanes.splice(at - 1, 2);
        continue;
      }
      l.ack(1);
      dropped++;
      n--;
    }
    return n;
  }

  const box: Outbox = {
    push(r: OutboxRecord): boolean {
      if (o.maxRecords < 1) return false;
      inLanes(o.maxRecords - 1);
      for (; q.length >= o.maxRecords; dropped++) {
        q.shift();
        bytes -= sz.shift()!;
      }
      const f = encodeFrame(r);
      q.push(r);
      sz.push(f ? f.length : 0);
      bytes += f ? f.length : 0;
      if (r.seq >= seq) seq = r.seq + 1;
      return true;
    },
    peek(n: number): OutboxRecord[] {
      return q.slice(0, Math.max(0, n));
    },
    ack(k: number): void {
      for (; k > 0 && q.length; k--) {
        q.shift();
        bytes -= sz.shift()!;
      }
    },
    reject(reason: string): void {
      if (!q.length) return;
      q.shift();
      bytes -= sz.shift()!;
      rejected++;
      lastReject = reason.slice(0, 60);
    },
    undrop(n: number): void {
      dropped = Math.max(0, dropped - n);
    },
    lane(device: string, make?: boolean): Outbox | undefined {
      for (let i = 0; i < lanes.length; i += 2) {
        if (lanes[i] !== device) continue;
        const l = lanes[i + 1] as Outbox;
        if (make || l.stats().depth) return l;
        lanes.splice(i, 2);
        break;
      }
      if (!make || o.lane) return undefined;
      const l = createMemoryOutbox({ maxRecords: Infinity, lane: true });
      const own = l.reject.bind(l);
      l.reject = (reason: string): void => {
        if (!l.stats().depth) return;
        own(reason);
        rejected++;
        lastReject = reason.slice(0, 60);
      };
      lanes.push(device, l);
      return l;
    },
    lanes(): string[] {
      const out: string[] = [];
      for (let i = 0; i < lanes.length; i += 2) if ((lanes[i + 1] as Outbox).stats().depth) out.push(lanes[i] as string);
      return out;
    },
    stats(): OutboxStats {
      let d = q.length;
      let b = bytes;
      for (let i = 1; i < lanes.length; i += 2) {
        const l = (lanes[i] as Outbox).stats();
        d += l.depth;
        b += l.bytes;
      }
      const st: OutboxStats = { depth: d, bytes: b, dropped, rejected, nextSeq: seq };
      if (lastReject !== undefined) st.lastReject = lastReject;
      return st;
    },
    nextSeq(): number {
      return seq++;
    },
  };
  return box;
}
