// The outbox in RAM, bounded by a record count and lost on reboot: for tests,
// and for the agent when the file store is unusable.

import { encodeFrame } from './frame';
import type { Outbox, OutboxRecord, OutboxStats } from './types';

export interface MemoryOutboxOptions {
  /** Records kept; the oldest are dropped beyond it. */
  maxRecords: number;
  /** First value of nextSeq(). Default 1. */
  firstSeq?: number;
  /** A held device's lane (src/agent/held.ts): no lanes of its own. */
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

  const box: Outbox = {
    push(r: OutboxRecord): boolean {
      if (o.maxRecords < 1) return false;
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
    stats(): OutboxStats {
      const st: OutboxStats = { depth: q.length, bytes, dropped, rejected, nextSeq: seq };
      if (lastReject !== undefined) st.lastReject = lastReject;
      return st;
    },
    nextSeq(): number {
      return seq++;
    },
  };
  if (!o.lane) {
    box.openLane = () => createMemoryOutbox({ maxRecords: Infinity, lane: true });
    box.full = (s) => s.depth >= o.maxRecords;
  }
  return box;
}
