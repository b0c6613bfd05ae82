import { describe, expect, it } from 'vitest';
import { crc32 } from '../../src/queue/crc32';
import { checkFrame, decodeFrame, encodeFrame, frameSeq } from '../../src/queue/frame';
import type { OutboxRecord } from '../../src/queue/types';
import { engineDecoder } from '../fakes/engine-decoder';
import { patched } from './helpers';

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('crc32', () => {
  it('matches the standard check values', () => {
    expect(crc32(ascii('123456789'), 0, 9)).toBe(0xcbf43926);
    expect(crc32(ascii(''), 0, 0)).toBe(0);
    expect(crc32(ascii('The quick brown fox jumps over the lazy dog'), 0, 43)).toBe(0x414fa339);
  });

  it('covers only the given range', () => {
    expect(crc32(ascii('xx123456789yy'), 2, 11)).toBe(0xcbf43926);
  });
});

describe('frame', () => {
  const typical: OutboxRecord = { seq: 1000, device: 'dev1', payload: '21.50', uptimeMs: 1_000_000, bootId: 5, wallMs: 1_763_800_000_000 };

  it('round-trips every field, large numbers and non-ASCII text included', () => {
    const cases: OutboxRecord[] = [
      typical,
      { seq: 0, device: '', payload: '', uptimeMs: 0, bootId: 0 },
      { seq: 2 ** 40, device: 'géo', payload: '{"t":"😀"}', uptimeMs: 2 ** 45 + 3, bootId: 65_537, wallMs: 0 },
      { seq: 7, device: 'd', payload: 'x'.repeat(3000), uptimeMs: 12, bootId: 1, wallMs: Number.MAX_SAFE_INTEGER - 1 },
    ];
    for (const r of cases) {
      const f = encodeFrame(r)!;
      expect(checkFrame(f, 0)).toBe(f.length);
      expect(decodeFrame(f, 0)).toEqual(r);
      expect(frameSeq(f, 0)).toBe(r.seq);
    }
  });

  it('takes 29 bytes for a typical reading', () => {
    // 7 framing + seq 2 + uptime 3 + boot 1 + wall clock 6 + device length 1 + 'dev1' 4 + '21.50' 5
    expect(encodeFrame(typical)!.length).toBe(29);
    const { wallMs: _, ...noClock } = typical;
    expect(encodeFrame(noClock)!.length).toBe(24);
  });

  it('stores whole milliseconds', () => {
    const f = encodeFrame({ ...typical, uptimeMs: 12.75, wallMs: 99.5 })!;
    expect(decodeFrame(f, 0)).toMatchObject({ uptimeMs: 12, wallMs: 99 });
  });

  it('finds a frame inside a larger buffer', () => {
    const a = encodeFrame(typical)!;
    const b = encodeFrame({ ...typical, seq: 1001, payload: 'next' })!;
    const buf = new Uint8Array(a.length + b.length);
    buf.set(a);
    buf.set(b, a.length);
    expect(checkFrame(buf, a.length)).toBe(b.length);
    expect(decodeFrame(buf, a.length)).toEqual({ ...typical, seq: 1001, payload: 'next' });
  });

  it('rejects the frame cut at every byte and with any single bit flipped', () => {
    const f = encodeFrame(typical)!;
    for (let n = 0; n < f.length; n++) expect(checkFrame(f.subarray(0, n), 0)).toBe(0);
    for (let i = 0; i < f.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const g = f.slice();
        g[i] = g[i]! ^ (1 << bit);
        expect(checkFrame(g, 0)).toBe(0);
      }
    }
  });

  it('refuses a body over 65,535 bytes', () => {
    expect(encodeFrame({ ...typical, payload: 'x'.repeat(70_000) })).toBeUndefined();
  });
});

describe('frame text that is not UTF-8', () => {
  const r: OutboxRecord = { seq: 3, device: 'dev1', payload: '21.50', uptimeMs: 10, bootId: 1 };
  const f = encodeFrame(r)!;
  const payloadAt = f.length - 5;
  const deviceAt = payloadAt - 4;

  it('keeps a frame whose bytes were patched to other UTF-8 (the CRC helper is right)', () => {
    const g = patched(f, { [payloadAt]: 0x33 });
    expect(checkFrame(g, 0)).toBe(g.length);
    expect(decodeFrame(g, 0)).toEqual({ ...r, payload: '31.50' });
  });

  it('rejects a payload ending in a lone F0, though the CRC is right', () => {
    expect(checkFrame(patched(f, { [f.length - 1]: 0xf0 }), 0)).toBe(0);
  });

  it('rejects a device name with a stray continuation byte, though the CRC is right', () => {
    expect(checkFrame(patched(f, { [deviceAt]: 0x80 }), 0)).toBe(0);
  });

  it('rejects a character split between device and payload, each half alone not UTF-8', () => {
    // c3 a9 is é: whole across the boundary, but neither text may end or start mid-character.
    expect(checkFrame(patched(f, { [payloadAt - 1]: 0xc3, [payloadAt]: 0xa9 }), 0)).toBe(0);
  });

  it('rejects a device length that reaches past the frame into the next bytes', () => {
    const whole = patched(f, { [deviceAt - 1]: 9 });
    expect(decodeFrame(whole, 0)).toEqual({ ...r, device: 'dev121.50', payload: '' });
    const g = patched(f, { [deviceAt - 1]: 10 });
    const buf = new Uint8Array(g.length + 3);
    buf.set(g);
    buf.set(ascii('xyz'), g.length);
    expect(checkFrame(whole, 0)).toBe(whole.length);
    expect(checkFrame(buf, 0)).toBe(0);
  });

  it('decodes such a frame, if ever asked, to U+FFFD without handing its bytes to the decoder', () => {
    const seen = engineDecoder();
    expect(decodeFrame(patched(f, { [deviceAt]: 0x80, [f.length - 1]: 0xf0 }), 0)).toEqual({ ...r, device: '\ufffd', payload: '\ufffd' });
    expect(seen).toEqual([]);
  });
});
