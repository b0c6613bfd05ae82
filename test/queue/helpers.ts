// Shared pieces of the outbox tests: records, a seeded PRNG, and the core
// behaviour suite run once per FileStore implementation.
import { beforeEach, describe, expect, it } from 'vitest';
import type { FileStore } from '../../src/ports/ports';
import { crc32 } from '../../src/queue/crc32';
import { encodeFrame } from '../../src/queue/frame';
import { createOutbox, type FileOutboxOptions } from '../../src/queue/outbox';
import type { Outbox, OutboxRecord } from '../../src/queue/types';

/** A record whose fields all vary with seq (odd seqs carry a wall clock). */
export function rec(seq: number, payload = `v${seq}é`): OutboxRecord {
  const r: OutboxRecord = { seq, device: `dev${seq % 3}`, payload, uptimeMs: seq * 1000 + 7, bootId: 2 };
  if (seq % 2) r.wallMs = 1_763_800_000_000 + seq;
  return r;
}

/** Records that all frame to the same size while seq < 128. */
export function flat(seq: number): OutboxRecord {
  return { seq, device: 'dev1', payload: '{"t":21.50}', uptimeMs: 5000 + seq, bootId: 2, wallMs: 1_763_800_000_000 };
}

/** Framed size of a record. */
export function frameBytes(r: OutboxRecord): number {
  return encodeFrame(r)!.length;
}

/** Frame f with bytes set at the given offsets and its CRC made right again: damage the CRC cannot see. */
export function patched(f: Uint8Array, at: Record<number, number>): Uint8Array {
  const g = f.slice();
  for (const [i, v] of Object.entries(at)) g[+i] = v;
  const c = crc32(g, 5, g.length);
  g.set([c & 255, (c >>> 8) & 255, (c >>> 16) & 255, c >>> 24], 1);
  return g;
}

/** Takes the next seq and pushes a record for it; returns the record. */
export function pushNext(ob: Outbox, make: (seq: number) => OutboxRecord = rec): OutboxRecord {
  const r = make(ob.nextSeq());
  expect(ob.push(r)).toBe(true);
  return r;
}

export const seqs = (rs: OutboxRecord[]): number[] => rs.map((r) => r.seq);
export const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** mulberry32: small, seeded, good enough to pick cut points. */
export function prng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

export function open(files: FileStore, over: Partial<FileOutboxOptions> = {}): Outbox {
  const ob = createOutbox({ files, dir: 'q', maxBytes: 64 * 1024, ...over });
  expect(ob).toBeDefined();
  return ob!;
}

export const segments = (files: FileStore): string[] => files.list('q').filter((f) => f.startsWith('seg-')).sort();

/**
 * The behaviour every FileStore must give the outbox. `storage()` makes empty
 * storage and returns `boot`, which gives a handle over that same storage as
 * if the board had restarted.
 */
export function outboxCoreSuite(label: string, storage: () => () => FileStore): void {
  describe(`outbox core (${label})`, () => {
    let boot: () => FileStore;
    beforeEach(() => {
      boot = storage();
    });

    it('gives records back oldest first and removes only what was acknowledged', () => {
      const ob = open(boot());
      const pushed = [1, 2, 3, 4, 5].map(() => pushNext(ob));
      expect(seqs(pushed)).toEqual([1, 2, 3, 4, 5]);
      expect(ob.peek(3)).toEqual(pushed.slice(0, 3));
      expect(ob.peek(3)).toEqual(pushed.slice(0, 3));
      ob.ack(2);
      expect(ob.peek(10)).toEqual(pushed.slice(2));
      expect(ob.stats().depth).toBe(3);
      expect(ob.stats().bytes).toBe(pushed.slice(2).reduce((s, r) => s + frameBytes(r), 0));
      ob.ack(3);
      expect(ob.peek(10)).toEqual([]);
      expect(ob.stats()).toEqual({ depth: 0, bytes: 0, dropped: 0, rejected: 0, nextSeq: 6 });
    });

    it('spreads records over segments and deletes each once fully acknowledged', () => {
      const files = boot();
      const ob = open(files, { segmentBytes: 100 });
      const pushed = range(1, 12).map(() => pushNext(ob, flat));
      const perSeg = Math.floor(100 / frameBytes(pushed[0]!));
      expect(perSeg).toBe(3);
      expect(segments(files).length).toBe(Math.ceil(12 / perSeg));
      expect(ob.peek(12)).toEqual(pushed);
      ob.ack(perSeg + 1);
      expect(segments(files).length).toBe(Math.ceil(12 / perSeg) - 1);
      expect(ob.peek(12)).toEqual(pushed.slice(perSeg + 1));
      ob.ack(100);
      expect(segments(files)).toEqual([]);
      // The cursor sits in a directory of its own (see src/queue/outbox.ts).
      expect(files.list('q')).toEqual(['c']);
      expect(files.list('q/c')).toEqual(['cursor']);
    });

    it('moves a rejected record aside with its reason', () => {
      const ob = open(boot());
      const pushed = [1, 2, 3].map(() => pushNext(ob));
      ob.reject('HTTP 400 bad value');
      expect(ob.peek(5)).toEqual(pushed.slice(1));
      expect(ob.stats()).toMatchObject({ depth: 2, rejected: 1, lastReject: 'HTTP 400 bad value' });
      const again = open(boot());
      expect(again.peek(5)).toEqual(pushed.slice(1));
      expect(again.stats()).toMatchObject({ depth: 2, rejected: 1, lastReject: 'HTTP 400 bad value' });
    });

    it('resumes exactly the same state after a reboot', () => {
      const ob = open(boot(), { segmentBytes: 120 });
      const pushed = range(1, 10).map(() => pushNext(ob));
      ob.ack(3);
      ob.reject('refused');
      const before = ob.stats();
      const again = open(boot(), { segmentBytes: 120 });
      expect(again.peek(20)).toEqual(pushed.slice(4));
      expect(again.stats()).toEqual(before);
      expect(before).toEqual({
        depth: 6,
        bytes: pushed.slice(4).reduce((s, r) => s + frameBytes(r), 0),
        dropped: 0,
        rejected: 1,
        lastReject: 'refused',
        nextSeq: 11,
      });
      pushNext(again);
      expect(seqs(again.peek(20))).toEqual(range(5, 11));
    });

    it('never hands out a sequence number twice across reboots', () => {
      const ob = open(boot());
      range(1, 3).forEach(() => pushNext(ob));
      expect(open(boot()).nextSeq()).toBe(4);
      ob.ack(3);
      // Everything acknowledged and its segment deleted: the cursor remembers.
      const again = open(boot());
      expect(again.peek(5)).toEqual([]);
      expect(again.nextSeq()).toBe(4);
      pushNext(again);
      expect(open(boot()).nextSeq()).toBe(6);
    });

    it('drops exactly the oldest records when full and keeps the count across reboots', () => {
      const f = frameBytes(flat(1));
      const opts = { maxBytes: 10 * f, segmentBytes: 3 * f };
      const files = boot();
      const ob = open(files, opts);
      const pushed = range(1, 25).map(() => pushNext(ob, flat));
      // Three records per segment: segments wholly dropped are gone at once.
      expect(segments(files)).toEqual(['seg-00000006', 'seg-00000007', 'seg-00000008', 'seg-00000009']);
      // Same-sized records make the bound exact.
      expect(new Set(pushed.map(frameBytes))).toEqual(new Set([f]));
      expect(ob.peek(30)).toEqual(pushed.slice(15));
      expect(ob.stats()).toMatchObject({ depth: 10, bytes: 10 * f, dropped: 15, nextSeq: 26 });
      const again = open(boot(), opts);
      expect(again.peek(30)).toEqual(pushed.slice(15));
      expect(again.stats()).toMatchObject({ depth: 10, bytes: 10 * f, dropped: 15, nextSeq: 26 });
      pushNext(again, flat);
      expect(seqs(again.peek(30))).toEqual(range(17, 26));
      expect(open(boot(), opts).stats()).toMatchObject({ depth: 10, dropped: 16 });
    });

    it('ignores a torn tail and never appends after it', () => {
      const files = boot();
      const ob = open(files);
      const pushed = [1, 2, 3].map(() => pushNext(ob));
      const torn = encodeFrame(rec(4))!.subarray(0, 11);
      files.append('q/' + segments(files).pop()!, torn);
      const again = open(boot());
      expect(again.peek(10)).toEqual(pushed);
      expect(again.stats().nextSeq).toBe(4);
      const r4 = pushNext(again);
      expect(segments(files).length).toBe(2);
      const third = open(boot());
      expect(third.peek(10)).toEqual([...pushed, r4]);
      expect(third.stats().depth).toBe(4);
    });

    it('refuses a record larger than the whole bound without losing others', () => {
      const ob = open(boot(), { maxBytes: 200 });
      const r1 = pushNext(ob);
      expect(ob.push(rec(ob.nextSeq(), 'y'.repeat(300)))).toBe(false);
      expect(ob.peek(5)).toEqual([r1]);
      expect(ob.stats()).toMatchObject({ depth: 1, dropped: 0 });
    });
  });
}
