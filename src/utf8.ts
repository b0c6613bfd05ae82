// The only way bytes from outside become a string. Kaluma 1.2.1's TextDecoder
// writes past its buffer on bytes that are not UTF-8 (docs/architecture.md,
// The ports and the runtime's defects), so every decode is checked first, here,
// and nothing else in src/ may call it (test/utf8.test.ts scans for it).

const dec = new TextDecoder();

/**
 * True when bytes start..end are well-formed UTF-8 (RFC 3629): no stray
 * continuation byte, no C0/C1/F5-FF, no overlong form, no surrogate
 * (U+D800-DFFF), nothing above U+10FFFF, no sequence cut by `end`.
 * False when the range reaches past the array.
 */
export function isUtf8(b: Uint8Array, start: number, end: number): boolean {
  if (end > b.length) return false;
  let i = start;
  while (i < end) {
    const c = b[i++]!;
    if (c < 0x80) continue;
    // Continuation bytes to come, and the first one's range (narrowed against
    // overlong forms, surrogates and code points past U+10FFFF).
    let n = 3;
    let lo = 0x80;
    let hi = 0xbf;
    if (c < 0xc2 || c > 0xf4) return false;
    if (c < 0xe0) n = 1;
    else if (c < 0xf0) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c === 0xf0) lo = 0x90;
    else if (c === 0xf4) hi = 0x8f;
    if (i + n > end) return false;
    for (; n > 0; n--, lo = 0x80, hi = 0xbf) {
      const x = b[i++]!;
      if (x < lo || x > hi) return false;
    }
  }
  return true;
}

/** The text of `bytes`, or undefined when they are not well-formed UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  return isUtf8(bytes, 0, bytes.length) ? dec.decode(bytes) : undefined;
}
