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
}

/** Bytes are counted in the flash outbox's framed form so stats compare across the two. */
function size(r: OutboxRecord): number {
  const f = encodeFrame(r);
  return f ? f.length : 0;
}

export function createMemoryOutbox(o: MemoryOutboxOptions): Outbox {
  const q: OutboxRecord[] = [];
  let bytes = 0;
  let seq = o.firstSeq ?? 1;
  let dropped = 0;
  let rejected = 0;
  let lastReject: string | undefined;

  function shift(): void {
    const r = q.shift();
    if (r) bytes -= size(r);
  }

  return {
    push(r: OutboxRecord): boolean {
      if (o.maxRecords < 1) return false;
      while (q.length >= o.maxRecords) {
        shift();
        dropped++;
      }
      q.push(r);
      bytes += size(r);
      if (r.seq >= seq) seq = r.seq + 1;
      return true;
    },
    peek(n: number): OutboxRecord[] {
      return q.slice(0, Math.max(0, n));
    },
    ack(k: number): void {
      for (; k > 0 && q.length; k--) shift();
    },
    reject(reason: string): void {
      if (!q.length) return;
      shift();
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
}
