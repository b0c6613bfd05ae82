import { describe, expect, it } from 'vitest';
import { createMemoryOutbox } from '../../src/queue/memory';
import { frameBytes, pushNext, range, rec, seqs } from './helpers';

describe('memory outbox', () => {
  it('gives records back oldest first and removes what was acknowledged', () => {
    const ob = createMemoryOutbox({ maxRecords: 10 });
    const pushed = range(1, 5).map(() => pushNext(ob));
    expect(ob.peek(2)).toEqual(pushed.slice(0, 2));
    ob.ack(2);
    expect(ob.peek(10)).toEqual(pushed.slice(2));
    expect(ob.stats()).toEqual({
      depth: 3,
      bytes: pushed.slice(2).reduce((s, r) => s + frameBytes(r), 0),
      dropped: 0,
      rejected: 0,
      nextSeq: 6,
    });
    ob.ack(99);
    expect(ob.stats()).toMatchObject({ depth: 0, bytes: 0 });
  });

  it('drops exactly the oldest records beyond its record bound', () => {
    const ob = createMemoryOutbox({ maxRecords: 4 });
    range(1, 9).forEach(() => pushNext(ob));
    expect(seqs(ob.peek(10))).toEqual([6, 7, 8, 9]);
    expect(ob.stats()).toMatchObject({ depth: 4, dropped: 5 });
  });

  it('moves a rejected record aside with its reason', () => {
    const ob = createMemoryOutbox({ maxRecords: 4 });
    range(1, 3).forEach(() => pushNext(ob));
    ob.reject('HTTP 400');
    expect(seqs(ob.peek(10))).toEqual([2, 3]);
    expect(ob.stats()).toMatchObject({ rejected: 1, lastReject: 'HTTP 400' });
    ob.reject('x'.repeat(100));
    expect(ob.stats().lastReject).toBe('x'.repeat(60));
  });

  it('continues numbering from firstSeq and past any pushed seq', () => {
    const ob = createMemoryOutbox({ maxRecords: 4, firstSeq: 40 });
    expect(ob.nextSeq()).toBe(40);
    expect(ob.push(rec(90))).toBe(true);
    expect(ob.nextSeq()).toBe(91);
  });
});
