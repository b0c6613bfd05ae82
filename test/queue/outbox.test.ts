import { describe, expect, it } from 'vitest';
import type { FileStore, Log } from '../../src/ports/ports';
import { createOutbox } from '../../src/queue/outbox';
import { encodeFrame } from '../../src/queue/frame';
import { engineDecoder } from '../fakes/engine-decoder';
import { createMemoryFileStore } from '../fakes/files';
import { open, outboxCoreSuite, patched, pushNext, rec, segments, seqs } from './helpers';

outboxCoreSuite('memory file store', () => {
  const store = createMemoryFileStore();
  return () => store;
});

/** A file store that notes the length of every readAt(). */
function watchedReads(): { files: ReturnType<typeof createMemoryFileStore>; reads: number[]; watched: FileStore } {
  const files = createMemoryFileStore();
  const reads: number[] = [];
  const watched: FileStore = {
    ...files,
    readAt: (p, offset, length) => {
      reads.push(length);
      return files.readAt(p, offset, length);
    },
  };
  return { files, reads, watched };
}

describe('outbox over the memory file store', () => {
  it('writes one append per push and one cursor replace per ack', () => {
    const files = createMemoryFileStore();
    const ob = open(files);
    files.resetCounts();
    const r1 = pushNext(ob);
    const r2 = pushNext(ob);
    expect(files.counts).toMatchObject({ appends: 2, writes: 0, renames: 0 });
    ob.ack(1);
    expect(files.counts).toMatchObject({ appends: 2, writes: 1, renames: 1, removes: 0 });
    expect(ob.peek(5)).toEqual([r2]);
    expect(r1.seq).toBe(1);
  });

  it('acknowledges by reading frame lengths a window at a time, never the rest of a segment', () => {
    const { files, reads, watched } = watchedReads();
    const ob = open(watched, { segmentBytes: 64 * 1024 });
    // Records of ~100 B and some of ~1.5 KB (bigger than a window) in one segment.
    const made = Array.from({ length: 40 }, (_, i) => pushNext(ob, (seq) => rec(seq, (i % 9 === 4 ? 'x'.repeat(1500) : 'v'.repeat(90)) + seq)));
    expect(segments(files)).toHaveLength(1);
    reads.length = 0;
    ob.ack(1);
    ob.ack(7);
    ob.ack(20);
    expect(Math.max(...reads)).toBeLessThanOrEqual(512);
    expect(seqs(ob.peek(3))).toEqual(seqs(made.slice(28, 31)));
    // The cursor saved says the same after a restart.
    expect(seqs(open(files).peek(3))).toEqual(seqs(made.slice(28, 31)));
    expect(ob.stats().depth).toBe(12);
  });

  // On the device's engine a 512 B read is one object holding 512 B, which
  // the engine's collector waits on (it collects at a limit only after enough
  // new objects): the uplink's peek(1) and ack(1) read what one record needs.
  it('reads about one record for peek(1), one frame header for ack(1), and a window for more', () => {
    const { reads, watched } = watchedReads();
    const ob = open(watched, { segmentBytes: 64 * 1024 });
    const made = Array.from({ length: 30 }, (_, i) => pushNext(ob, (seq) => rec(seq, (i === 1 ? 'x'.repeat(1500) : 'v'.repeat(90)) + seq)));
    reads.length = 0;
    expect(ob.peek(1)).toEqual([made[0]]);
    expect(reads).toEqual([160]);
    reads.length = 0;
    ob.ack(1);
    expect(reads).toEqual([7]);
    // A record longer than that is read again at its size.
    reads.length = 0;
    expect(ob.peek(1)).toEqual([made[1]]);
    expect(reads[0]).toBe(160);
    expect(reads[1]).toBeGreaterThan(1500);
    ob.ack(1);
    reads.length = 0;
    expect(seqs(ob.peek(20))).toEqual(seqs(made.slice(2, 22)));
    expect(Math.max(...reads)).toBe(512);
  });

  it('starts a new segment after a failed append', () => {
    const files = createMemoryFileStore();
    const lines: string[] = [];
    const log: Log = { info: (l) => lines.push(l), error: (l) => lines.push(l) };
    const ob = open(files, { log });
    const r1 = pushNext(ob);
    files.tearNext(5);
    expect(ob.push(rec(ob.nextSeq()))).toBe(false);
    expect(lines).toEqual(['outbox: push 2: torn write']);
    const r3 = pushNext(ob);
    expect(segments(files)).toEqual(['seg-00000001', 'seg-00000002']);
    expect(ob.peek(5)).toEqual([r1, r3]);
    expect(open(files).peek(5)).toEqual([r1, r3]);
  });

  it('keeps the old cursor when its replacement is torn', () => {
    const files = createMemoryFileStore();
    const ob = open(files);
    [1, 2, 3, 4].forEach(() => pushNext(ob));
    ob.ack(1);
    files.tearNext(3);
    ob.ack(2);
    expect(seqs(ob.peek(5))).toEqual([4]);
    // The second ack never reached flash: its records come back, nothing else.
    expect(seqs(open(files).peek(5))).toEqual([2, 3, 4]);
  });

  it('falls back to the oldest segment when the cursor is unreadable', () => {
    const files = createMemoryFileStore();
    const ob = open(files);
    [1, 2, 3].forEach(() => pushNext(ob));
    ob.ack(1);
    files.write('q/c/cursor', new TextEncoder().encode('{"s":'));
    expect(seqs(open(files).peek(5))).toEqual([1, 2, 3]);
  });

  it('treats a frame whose text is not UTF-8 like a torn one, though its CRC is right', () => {
    const files = createMemoryFileStore();
    const lines: string[] = [];
    const log: Log = { info: (l) => lines.push(l), error: (l) => lines.push(l) };
    engineDecoder();
    const ob = open(files);
    const pushed = [1, 2, 3].map(() => pushNext(ob));
    const f = encodeFrame(rec(4))!;
    files.append('q/seg-00000001', patched(f, { [f.length - 1]: 0xf0 }));
    const again = open(files, { log });
    expect(again.peek(10)).toEqual(pushed);
    expect(lines).toEqual(['outbox: ignored ' + f.length + ' torn bytes in q/seg-00000001']);
    expect(again.stats()).toMatchObject({ depth: 3, nextSeq: 4 });
    pushNext(again);
    expect(segments(files)).toEqual(['seg-00000001', 'seg-00000002']);
  });

  it('ignores a cursor that is not UTF-8 and starts from the oldest segment', () => {
    const files = createMemoryFileStore();
    const lines: string[] = [];
    const log: Log = { info: (l) => lines.push(l), error: (l) => lines.push(l) };
    engineDecoder();
    const ob = open(files);
    [1, 2, 3].forEach(() => pushNext(ob));
    ob.ack(1);
    files.write('q/c/cursor', Uint8Array.from([...new TextEncoder().encode('{"s":1,"o":0,"n":4,"d":0,"r":1,"w":"'), 0xe9, 0x22, 0x7d]));
    expect(seqs(open(files, { log }).peek(5))).toEqual([1, 2, 3]);
    expect(lines).toEqual(['outbox: cursor ignored: not UTF-8']);
  });

  it('saves the cursor in a directory of its own, away from the segments, so that an acknowledgement never rewrites their directory', () => {
    const files = createMemoryFileStore();
    const ob = open(files);
    [1, 2, 3].forEach(() => pushNext(ob));
    const written: string[] = [];
    const watched: FileStore = { ...files, write: (p, b) => (written.push(p), files.write(p, b)), rename: (f, t) => (written.push(t), files.rename(f, t)) };
    const again = open(watched);
    again.ack(1);
    expect(written).toEqual(['q/c/cursor.tmp', 'q/c/cursor']);
    expect(seqs(open(files).peek(5))).toEqual([2, 3]);
  });

  it('takes over a cursor an earlier version left among the segments, and removes it after its first save', () => {
    const files = createMemoryFileStore();
    const ob = open(files);
    [1, 2, 3, 4].forEach(() => pushNext(ob));
    ob.ack(2);
    // As an earlier version left it: the cursor beside the segments, none in q/c.
    files.write('q/cursor', files.contents('q/c/cursor')!);
    files.remove('q/c/cursor');
    const again = open(files);
    expect(seqs(again.peek(5))).toEqual([3, 4]);
    again.ack(1);
    expect(files.list('q')).not.toContain('cursor');
    expect(seqs(open(files).peek(5))).toEqual([4]);
  });

  it('reports an unusable store as undefined', () => {
    const broken = { ...createMemoryFileStore(), mkdir: () => { throw new Error('EIO'); } } as FileStore;
    expect(createOutbox({ files: broken, dir: 'q', maxBytes: 1000 })).toBeUndefined();
  });
});
