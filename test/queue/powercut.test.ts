// Power cuts at random byte points (seeded, so every run cuts at the same
// places) while records are pushed, acknowledged and rejected. After each cut
// the outbox is rebuilt from what the store kept and compared with a model of
// what the completed calls promised:
//   - every push that returned true is there, in order, nothing else is;
//   - nothing acknowledged or rejected before the cut comes back, and of the
//     call cut mid-way (the in-flight batch) either all or none comes back;
//   - drops are the oldest records only and the drop count stays exact;
//   - the next sequence number never goes back: it continues after the last
//     stored record, or after the in-flight push's when a drop made room for
//     it and saved the cursor before the cut.
import { describe, expect, it } from 'vitest';
import type { OutboxRecord } from '../../src/queue/types';
import { createMemoryFileStore } from '../fakes/files';
import { flat, frameBytes, open, prng, rec, segments as segmentsOf } from './helpers';

interface Setup {
  seed: number;
  maxBytes: number;
  segmentBytes: number;
  /** Percent of steps that push; the rest acknowledge or reject. */
  pushShare: number;
}

type InFlight =
  | { kind: 'push'; seq: number; before: OutboxRecord[]; after: OutboxRecord[] }
  | { kind: 'remove'; n: number; reason?: string };

const sum = (rs: OutboxRecord[]): number => rs.reduce((s, r) => s + frameBytes(r), 0);

function cutAndCheck(s: Setup, cuts: number): Record<string, number> {
  const rnd = prng(s.seed);
  const files = createMemoryFileStore();
  const cfg = { maxBytes: s.maxBytes, segmentBytes: s.segmentBytes };
  let ob = open(files, cfg);
  let want: OutboxRecord[] = [];
  let dropped = 0;
  let rejected = 0;
  let lastReject: string | undefined;
  let lastSeq = 0;
  let bootNext = 1;
  const seen = { pushCut: 0, removeLost: 0, removeKept: 0, dropsUndone: 0 };

  for (let cut = 0; cut < cuts; cut++) {
    files.powerCutAfter(rnd(600));
    let inFlight: InFlight;
    for (;;) {
      const roll = rnd(100);
      if (roll < s.pushShare) {
        const r = rec(ob.nextSeq(), 'p'.repeat(rnd(40)));
        const f = frameBytes(r);
        const kept = want.slice();
        while (kept.length && sum(kept) + f > s.maxBytes) kept.shift();
        const ok = ob.push(r);
        if (files.isDark()) {
          expect(ok).toBe(false);
          inFlight = { kind: 'push', seq: r.seq, before: want, after: kept };
          break;
        }
        expect(ok).toBe(true);
        dropped += want.length - kept.length;
        want = [...kept, r];
        lastSeq = r.seq;
      } else {
        const k = 1 + rnd(5);
        const batch = ob.peek(k);
        expect(batch).toEqual(want.slice(0, k));
        const reason = roll < 95 - (100 - s.pushShare) / 5 ? undefined : `refused ${cut}`;
        const n = reason === undefined ? batch.length : Math.min(1, batch.length);
        if (reason === undefined) ob.ack(n);
        else ob.reject(reason);
        if (files.isDark()) {
          inFlight = reason === undefined ? { kind: 'remove', n } : { kind: 'remove', n, reason };
          break;
        }
        want = want.slice(n);
        if (reason !== undefined && n) {
          rejected++;
          lastReject = reason;
        }
      }
    }

    files.powerOn();
    ob = open(files, cfg);
    const got = ob.peek(1e6);
    if (inFlight.kind === 'remove') {
      const done = want.slice(inFlight.n);
      expect([want, done]).toContainEqual(got);
      if (got.length === done.length && inFlight.n) {
        seen.removeKept++;
        want = done;
        if (inFlight.reason !== undefined) {
          rejected++;
          lastReject = inFlight.reason;
        }
      } else if (inFlight.n) seen.removeLost++;
    } else {
      // The record never made it; drops made room for it may or may not have.
      seen.pushCut++;
      const b = inFlight.before;
      expect(got).toEqual(b.slice(b.length - got.length));
      expect(got.length).toBeGreaterThanOrEqual(inFlight.after.length);
      if (got.length > inFlight.after.length) seen.dropsUndone++;
      dropped += b.length - got.length;
      want = got;
    }
    const next = Math.max(lastSeq + 1, bootNext);
    const got2 = ob.stats();
    if (inFlight.kind === 'push' && got2.nextSeq === inFlight.seq + 1) bootNext = inFlight.seq + 1;
    else bootNext = next;
    const st = { depth: want.length, bytes: sum(want), dropped, rejected, nextSeq: bootNext };
    expect(got2).toEqual(lastReject === undefined ? st : { ...st, lastReject });
  }
  return seen;
}

describe('outbox under power cuts', () => {
  it('keeps every completed push and repeats at most the in-flight batch (100 cuts)', () => {
    const seen = cutAndCheck({ seed: 20261122, maxBytes: 64 * 1024, segmentBytes: 160, pushShare: 65 }, 100);
    // Each outcome the bound allows actually happened, so each was checked.
    expect(seen.pushCut).toBeGreaterThan(0);
    expect(seen.removeLost).toBeGreaterThan(0);
  });

  it('keeps an ack whose cursor was saved even if the cut hits the segment deletion', () => {
    const files = createMemoryFileStore();
    const ob = open(files, { segmentBytes: 100 });
    const pushed = [1, 2, 3, 4, 5, 6, 7].map((seq) => {
      const r = flat(ob.nextSeq());
      expect(ob.push(r)).toBe(true);
      expect(r.seq).toBe(seq);
      return r;
    });
    const batch = ob.peek(3);
    const cursorBytes = new TextEncoder().encode(
      JSON.stringify({ s: 2, o: 0, n: 8, d: 0, r: 0 }),
    ).length;
    expect(segmentsOf(files)).toEqual(['seg-00000001', 'seg-00000002', 'seg-00000003']);
    // The cursor write and its rename go through; the first segment removal is cut.
    files.powerCutAfter(cursorBytes + 1);
    ob.ack(batch.length);
    expect(files.isDark()).toBe(true);
    files.powerOn();
    expect(segmentsOf(files)).toEqual(['seg-00000001', 'seg-00000002', 'seg-00000003']);
    const again = open(files, { segmentBytes: 100 });
    expect(again.peek(10)).toEqual(pushed.slice(3));
    expect(segmentsOf(files)).toEqual(['seg-00000002', 'seg-00000003']);
    // Same once the queue is empty: the cursor must still point past them.
    again.ack(4);
    expect(files.isDark()).toBe(false);
    const emptyCursor = new TextEncoder().encode(JSON.stringify({ s: 6, o: 0, n: 9, d: 0, r: 0 })).length;
    expect(again.stats().depth).toBe(0);
    const third = open(files, { segmentBytes: 100 });
    third.push(flat(third.nextSeq()));
    third.peek(1);
    files.powerCutAfter(emptyCursor + 1);
    third.ack(1);
    expect(files.isDark()).toBe(true);
    files.powerOn();
    expect(segmentsOf(files)).toEqual(['seg-00000005']);
    const fourth = open(files, { segmentBytes: 100 });
    expect(fourth.peek(10)).toEqual([]);
    expect(fourth.nextSeq()).toBe(9);
  });

  it('keeps the drop count exact when full (100 cuts)', () => {
    const seen = cutAndCheck({ seed: 7, maxBytes: 420, segmentBytes: 130, pushShare: 85 }, 100);
    expect(seen.pushCut).toBeGreaterThan(0);
    expect(seen.dropsUndone).toBeGreaterThan(0);
  });
});
