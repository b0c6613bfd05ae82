// UTF-8 by hand: Kaluma 1.2.1's encodeURIComponent corrupts non-ASCII (docs/architecture.md,
// The ports and the runtime's defects), so the path encoder and byte counts walk the string here.

/**
 * The code point at `i` (a pair of surrogates read as one; a lone surrogate
 * as U+FFFD, as a conforming encoder emits). Callers step 2 past U+FFFF.
 */
export function codeAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0xd800 || c > 0xdfff) return c;
  const next = s.charCodeAt(i + 1);
  return c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00) : 0xfffd;
}

/** Calls `each` (when given) with every UTF-8 byte of `s`; returns how many. One loop: no closure per count. */
export function utf8(s: string, each?: (byte: number) => void): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = codeAt(s, i);
    if (c > 0xffff) i++;
    // Bytes of this code point, and the shift of its first byte's bits.
    const k = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    n += k;
    if (!each) continue;
    // The lead byte: k ones then a zero at the top (none for ASCII).
    let j = 6 * (k - 1);
    each((k > 1 ? (0xf00 >> k) & 0xff : 0) | (c >> j));
    while ((j -= 6) >= 0) each(0x80 | ((c >> j) & 63));
  }
  return n;
}

/** Length of `s` in UTF-8 bytes. */
export function utf8Length(s: string): number {
  return utf8(s);
}
