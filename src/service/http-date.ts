// HTTP dates and Retry-After. Parsed by hand: engines differ in what
// Date.parse accepts, and the device clock may be unset, so a Retry-After
// date is measured against the reply's own Date header.

const MONTHS = 'JanFebMarAprMayJunJulAugSepOctNovDec';

/** An IMF-fixdate (`Sun, 22 Nov 2026 08:05:00 GMT`) as ms since the epoch. */
export function parseHttpDate(s: string): number | undefined {
  const m = /^[A-Za-z]{3}, (\d\d) ([A-Za-z]{3}) (\d{4}) (\d\d):(\d\d):(\d\d) GMT$/.exec(s.trim());
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[2] as string);
  if (month < 0 || month % 3) return undefined;
  const n = (i: number): number => Number(m[i]);
  if (n(1) < 1 || n(1) > 31 || n(4) > 23 || n(5) > 59 || n(6) > 60) return undefined;
  return Date.UTC(n(3), month / 3, n(1), n(4), n(5), n(6));
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
  if (/^\d+$/.test(v)) {
    ms = Number(v) * 1000;
  } else {
    const at = parseHttpDate(v);
    const now = date === undefined ? undefined : parseHttpDate(date);
    if (at === undefined || now === undefined) return undefined;
    ms = Math.max(0, at - now);
  }
  return Math.min(ms, RETRY_AFTER_CAP_MS);
}
