// decodeUtf8 is the gate in front of Kaluma 1.2.1's TextDecoder, which writes
// past its buffer on bytes that are not well-formed UTF-8
// (docs/architecture.md, The ports and the runtime's defects). These tests pin every rule of RFC 3629,
// compare the validator with Node's decoder over every short sequence, and
// keep TextDecoder out of the rest of src/.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { decodeUtf8, isUtf8 } from '../src/utf8';
import { engineDecoder, hex, wellFormed } from './fakes/engine-decoder';

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);
const strict = new TextDecoder('utf-8', { fatal: true });

describe('decodeUtf8 accepts well-formed UTF-8', () => {
  const cases: Array<[string, Uint8Array, string]> = [
    ['the empty input', bytes(), ''],
    ['NUL and U+007F, the ends of ASCII', bytes(0x00, 0x41, 0x7f), '\u0000A\u007f'],
    ['U+0080, the first two-byte code point', bytes(0xc2, 0x80), '\u0080'],
    ['U+07FF, the last two-byte code point', bytes(0xdf, 0xbf), '\u07ff'],
    ['U+0800, the first three-byte code point', bytes(0xe0, 0xa0, 0x80), '\u0800'],
    ['U+D7FF, just below the surrogates', bytes(0xed, 0x9f, 0xbf), '\ud7ff'],
    ['U+E000, just above the surrogates', bytes(0xee, 0x80, 0x80), '\ue000'],
    ['U+FFFF, the last three-byte code point', bytes(0xef, 0xbf, 0xbf), '\uffff'],
    ['U+10000, the first four-byte code point', bytes(0xf0, 0x90, 0x80, 0x80), '\u{10000}'],
    ['U+10FFFF, the last code point', bytes(0xf4, 0x8f, 0xbf, 0xbf), '\u{10ffff}'],
    ['mixed text', new TextEncoder().encode('21.5 °C, 20 € 😀'), '21.5 °C, 20 € 😀'],
  ];
  for (const [name, b, s] of cases) {
    it(name + ': ' + (hex(b) || 'no bytes'), () => {
      expect(isUtf8(b, 0, b.length)).toBe(true);
      expect(decodeUtf8(b)).toBe(s);
    });
  }
});

describe('decodeUtf8 refuses what is not well-formed UTF-8', () => {
  const cases: Array<[string, Uint8Array]> = [
    ['a lone continuation byte 0x80', bytes(0x80)],
    ['a lone continuation byte 0xBF', bytes(0x41, 0xbf, 0x41)],
    ['a continuation byte after a whole sequence', bytes(0xc2, 0x80, 0x80)],
    ['C0, only ever an overlong lead', bytes(0xc0, 0x80)],
    ['C1, only ever an overlong lead', bytes(0xc1, 0xbf)],
    ['an overlong three-byte U+0000', bytes(0xe0, 0x80, 0x80)],
    ['an overlong three-byte U+07FF', bytes(0xe0, 0x9f, 0xbf)],
    ['an overlong four-byte U+0000', bytes(0xf0, 0x80, 0x80, 0x80)],
    ['an overlong four-byte U+FFFF', bytes(0xf0, 0x8f, 0xbf, 0xbf)],
    ['the surrogate U+D800', bytes(0xed, 0xa0, 0x80)],
    ['the surrogate U+DFFF', bytes(0xed, 0xbf, 0xbf)],
    ['a surrogate pair encoded as two sequences (CESU-8)', bytes(0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80)],
    ['U+110000, past the last code point', bytes(0xf4, 0x90, 0x80, 0x80)],
    ['the lead F5', bytes(0xf5, 0x80, 0x80, 0x80)],
    ['the lead F7 of a would-be U+1FFFFF', bytes(0xf7, 0xbf, 0xbf, 0xbf)],
    ['a five-byte lead F8', bytes(0xf8, 0x88, 0x80, 0x80, 0x80)],
    ['FE', bytes(0xfe)],
    ['FF', bytes(0xff)],
    ['a two-byte sequence cut at the end', bytes(0x41, 0xc2)],
    ['a three-byte sequence cut at the end', bytes(0xe2, 0x82)],
    ['a four-byte sequence cut at the end', bytes(0xf0, 0x9f, 0x98)],
    ['a three-byte sequence cut by ASCII', bytes(0xe2, 0x82, 0x41)],
    ['a four-byte sequence cut by a new lead', bytes(0xf0, 0x9f, 0xc2, 0x80)],
    ['Latin-1 text', bytes(0x63, 0x61, 0x66, 0xe9)],
  ];
  for (const [name, b] of cases) {
    it(name + ': ' + hex(b), () => {
      expect(wellFormed(b)).toBe(false);
      expect(isUtf8(b, 0, b.length)).toBe(false);
      expect(decodeUtf8(b)).toBeUndefined();
    });
  }

  it('refuses every lone byte 80-FF and accepts every byte 00-7F', () => {
    for (let c = 0; c < 256; c++) expect([c, decodeUtf8(bytes(c)) !== undefined]).toEqual([c, c < 0x80]);
  });
});

describe('the byte patterns that crash the engine', () => {
  it('refuses E0 F0 41 repeated 1,000 times plus 0x80, the repro that writes 4,001 bytes into 3,003', () => {
    const b = new Uint8Array(3001);
    for (let i = 0; i < 1000; i++) b.set([0xe0, 0xf0, 0x41], 3 * i);
    b[3000] = 0x80;
    expect(decodeUtf8(b)).toBeUndefined();
    expect(decodeUtf8(b.subarray(0, 3))).toBeUndefined();
  });

  it('accepts the repro control: U+20AC repeated 1,000 times plus "A"', () => {
    const b = new Uint8Array(3001);
    for (let i = 0; i < 1000; i++) b.set([0xe2, 0x82, 0xac], 3 * i);
    b[3000] = 0x41;
    expect(decodeUtf8(b)).toBe('€'.repeat(1000) + 'A');
  });

  it('refuses a lone F0-F7 (Latin-1 ð..÷) in any of the last three bytes', () => {
    for (let lead = 0xf0; lead <= 0xf7; lead++) {
      for (let fromEnd = 1; fromEnd <= 3; fromEnd++) {
        const b = new TextEncoder().encode('{"v":"21.50"}');
        b[b.length - fromEnd] = lead;
        expect([lead, fromEnd, decodeUtf8(b)]).toEqual([lead, fromEnd, undefined]);
      }
    }
  });
});

describe('isUtf8 over a range', () => {
  const b = bytes(0xff, 0x41, 0xc3, 0xa9, 0x42, 0xff);

  it('looks only at start..end', () => {
    expect(isUtf8(b, 1, 5)).toBe(true);
    expect(isUtf8(b, 0, 5)).toBe(false);
    expect(isUtf8(b, 1, 6)).toBe(false);
    expect(isUtf8(b, 3, 3)).toBe(true);
  });

  it('refuses a sequence that end cuts in two', () => {
    expect(isUtf8(b, 1, 3)).toBe(false);
    expect(isUtf8(b, 3, 5)).toBe(false);
  });

  it('refuses a range that reaches past the array', () => {
    expect(isUtf8(bytes(0x41), 0, 2)).toBe(false);
    expect(isUtf8(bytes(0xc3, 0xa9), 0, 3)).toBe(false);
  });
});

describe('agrees with Node over every short sequence', () => {
  const ends = [0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xe0, 0xf0, 0xff];

  const check = (b: Uint8Array): void => {
    const ok = wellFormed(b);
    if (isUtf8(b, 0, b.length) !== ok) expect([hex(b), isUtf8(b, 0, b.length)]).toEqual([hex(b), ok]);
    const s = decodeUtf8(b);
    if (ok ? s !== strict.decode(b) : s !== undefined) expect([hex(b), s]).toEqual([hex(b), ok ? strict.decode(b) : undefined]);
  };

  it('every one- and two-byte sequence', () => {
    for (let a = 0; a < 256; a++) {
      check(bytes(a));
      for (let c = 0; c < 256; c++) check(bytes(a, c));
    }
  });

  it('every three-byte sequence led by E0-F4 with a continuation second byte, and every other with a third of each class', () => {
    for (let a = 0; a < 256; a++) {
      for (let c = 0; c < 256; c++) {
        if (a >= 0xe0 && a <= 0xf4 && c >= 0x80 && c <= 0xbf) for (let d = 0; d < 256; d++) check(bytes(a, c, d));
        else for (const d of ends) check(bytes(a, c, d));
      }
    }
  });

  it('every four-byte sequence from F0-F4 with the last two bytes of each class', () => {
    for (let a = 0xf0; a <= 0xf4; a++) for (let c = 0; c < 256; c++) for (const d of ends) for (const e of ends) check(bytes(a, c, d, e));
  });
});

describe('the decoder never sees bytes that are not UTF-8', () => {
  it('calls TextDecoder only for well-formed input', () => {
    const seen = engineDecoder();
    expect(decodeUtf8(bytes(0x41, 0xf0))).toBeUndefined();
    expect(decodeUtf8(bytes(0xed, 0xa0, 0x80))).toBeUndefined();
    expect(decodeUtf8(bytes(0xc3, 0xa9))).toBe('é');
    expect(seen).toEqual(['c3 a9']);
  });

  // The stand-in itself: a test whose code hands it malformed bytes fails, even when the throw is caught.
  it.fails('the engine stand-in fails a test that decodes malformed bytes and catches the throw', () => {
    engineDecoder();
    expect(() => new TextDecoder().decode(bytes(0x41, 0xf0))).toThrow('the engine would corrupt its heap');
  });
});

/** Where TextDecoder belongs: the one checked decoder and the engine's declaration. */
const DECODER_HOMES = ['src/utf8.ts', 'src/engine.d.ts'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n).replace(/\\/g, '/');
    if (statSync(p).isDirectory()) return tsFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Lines of `text` whose code (not comments) names TextDecoder, as an identifier or inside a string. */
function decoderLines(text: string): number[] {
  const sc = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  const lines: number[] = [];
  for (let t = sc.scan(); t !== ts.SyntaxKind.EndOfFileToken; t = sc.scan()) {
    if (sc.getTokenText().includes('TextDecoder')) lines.push(text.slice(0, sc.getTokenStart()).split('\n').length);
  }
  return lines;
}

describe('TextDecoder stays behind decodeUtf8', () => {
  const uses = (): string[] =>
    tsFiles('src').flatMap((f) => decoderLines(readFileSync(f, 'utf8')).map((l) => f + ':' + l));

  it('appears in src/ only in src/utf8.ts and the engine declaration', () => {
    const outside = uses().filter((u) => !DECODER_HOMES.includes(u.split(':')[0]!));
    expect(outside).toEqual([]);
  });

  it('finds a use in code or a string, and not in a comment', () => {
    const src = [
      '// TextDecoder in a comment',
      'const d = new TextDecoder();',
      '/* TextDecoder */ const g = (globalThis as any)["TextDecoder"];',
      'const ok = decodeUtf8(b);',
    ].join('\n');
    expect(decoderLines(src)).toEqual([2, 3]);
  });
});
