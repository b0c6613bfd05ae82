// UTF-8 by hand: the device has no TextEncoder typings under lib es2019, and
// Kaluma's encodeURIComponent mangles astral characters, so both the path
// encoder and byte counts walk the string here.

/**
 * Calls `each` with every UTF-8 byte of `s`. A lone surrogate becomes the
 * bytes of U+FFFD, as a conforming encoder would emit.
 */
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

/** Calls `each` with every UTF-8 byte of `s`. */
export function utf8(s: string, each: (byte: number) => void): void {
  for (let i = 0; i < s.length; i++) {
    const c = codeAt(s, i);
    if (c > 0xffff) i++;
    if (c < 0x80) {
      each(c);
    } else if (c < 0x800) {
      each(0xc0 | (c >> 6));
      each(0x80 | (c & 63));
    } else if (c < 0x10000) {
      each(0xe0 | (c >> 12));
      each(0x80 | ((c >> 6) & 63));
      each(0x80 | (c & 63));
    } else {
      each(0xf0 | (c >> 18));
      each(0x80 | ((c >> 12) & 63));
      each(0x80 | ((c >> 6) & 63));
      each(0x80 | (c & 63));
    }
  }
}

/** Length of `s` in UTF-8 bytes. */
export function utf8Length(s: string): number {
  let n = 0;
  utf8(s, () => n++);
  return n;
}
