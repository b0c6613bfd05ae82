// HTTP dates and Retry-After, parsed by hand: engines differ in what
// Date.parse accepts, and a regular expression stays compiled on the heap. The
// device clock may be unset, so a Retry-After date is read against the reply's Date.

/**
 * Whether `t` has the shape of `form`, a character each: an ASCII letter for
 * 'a', an ASCII digit for '0', else that same character.
 */
function fits(t: string, form: string): boolean {
  if (t.length !== form.length) return false;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    const f = form.charAt(i);
    const l = c | 32;
    if (f === 'a' ? !(l >= 97 && l <= 122) : f === '0' ? !(c >= 48 && c <= 57) : f !== t.charAt(i)) return false;
  }
  return true;
}

/** An IMF-fixdate (`Sun, 22 Nov 2026 08:05:00 GMT`) as ms since the epoch. */
export function parseHttpDate(s: string): number | undefined {
  const t = s.trim();
  if (!fits(t, 'aaa, 00 aaa 0000 00:00:00 GMT')) return undefined;
  const month = 'JanFebMarAprMayJunJulAugSepOctNovDec'.indexOf(t.substr(8, 3));
  if (month < 0 || month % 3) return undefined;
  const day = Number(t.substr(5, 2));
  const h = Number(t.substr(17, 2));
  const m = Number(t.substr(20, 2));
  const sec = Number(t.substr(23, 2));
  if (day < 1 || day > 31 || h > 23 || m > 59 || sec > 60) return undefined;
  return Date.UTC(Number(t.substr(12, 4)), month / 3, day, h, m, sec);
}

export const RETRY_AFTER_CAP_MS = 3600000;

/**
 * Retry-After as a delay in ms, capped at one hour: delta-seconds, or an
 * HTTP-date taken relative to the reply's Date header (undefined without it).
 */
export function parseRetryAfter(value: string | undefined, date: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  let ms: number | undefined;
  if (v && fits(v, '0'.repeat(v.length))) {
    ms = Number(v) * 1000;
  } else {
    const at = parseHttpDate(v);
    const now = date === undefined ? undefined : parseHttpDate(date);
    if (at === undefined || now === undefined) return undefined;
    ms = Math.max(0, at - now);
  }
  return Math.min(ms, RETRY_AFTER_CAP_MS);
}
