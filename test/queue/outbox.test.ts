import { describe, expect, it } from 'vitest';
import type { FileStore, Log } from '../../src/ports/ports';
import { createOutbox } from '../../src/queue/outbox';
import { createMemoryFileStore } from '../fakes/files';
import { open, outboxCoreSuite, pushNext, rec, segments, seqs } from './helpers';

outboxCoreSuite('memory file store', () => {
  const store = createMemoryFileStore();
  return () => store;
});

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
    files.write('q/cursor', new TextEncoder().encode('{"s":'));
    expect(seqs(open(files).peek(5))).toEqual([1, 2, 3]);
  });

  it('reports an unusable store as undefined', () => {
    const broken = { ...createMemoryFileStore(), mkdir: () => { throw new Error('EIO'); } } as FileStore;
    expect(createOutbox({ files: broken, dir: 'q', maxBytes: 1000 })).toBeUndefined();
  });
});
