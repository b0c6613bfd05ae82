// Payloads for the three device formats, built from readings.
//
// Value: the number as text, e.g. `21.50` (it becomes the Data path segment).
//
// JSON (compact, ASCII only):
//   {"temp":21.50,"hum":40.25,"seq":12,"uptime_ms":3400,"ts":"2026-11-22T08:05:00.000Z"}
//   Each sensor's latest value under its name, in first-seen order, then the
//   highest seq, the uptime of that reading and, only when its wall-clock time
//   is known, ts (ISO 8601 UTC). With batch > 1 and readings from several
//   sample groups: an array of such objects, oldest first. A new group starts
//   when a sensor appears a second time. The caller picks how many readings to
//   pass; every group given is encoded.
//
// XML (no declaration, ASCII only):
//   <reading seq="12" uptime_ms="3400" ts="2026-11-22T08:05:00.000Z"><temp unit="C">21.50</temp><hum>40.25</hum></reading>
//   One element per sensor (latest value), named after the sensor; `unit` is
//   left out when the unit is empty; `ts` only when the time is known.
//
// Numbers: fixed decimals, see formatNumber.

import type { DeviceConfig, Reading } from '../model';
import { codeAt } from './utf8';

export type Encoded = { ok: true; text: string } | { ok: false; error: string };

const META = ['seq', 'uptime_ms', 'ts'];

/**
 * `v` with exactly `decimals` (0..6) digits after the point, never in
 * exponent notation and never '-0'. Rounds half away from zero on the
 * shortest decimal form of `v` (the digits String(v) shows), so 1.005 gives
 * '1.01' and 1.45 with one decimal gives '1.5', as a person reading the value
 * expects; toFixed would give '1.00' from the binary value, and engines
 * disagree on it. NaN, ±Infinity and |v| ≥ 1e21 give undefined: no sensor
 * reads that much, so such a value is a fault and the caller rejects it.
 */
export function formatNumber(v: number, decimals: number): string | undefined {
  if (!isFinite(v) || Math.abs(v) >= 1e21 || !(decimals >= 0 && decimals <= 6 && decimals % 1 === 0)) {
    return undefined;
  }
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(v)));
  if (!m) return undefined;
  let digits = (m[1] as string) + (m[2] || '');
  // Index in `digits` where the integer part ends.
  let point = (m[1] as string).length + Number(m[3] || 0);
  while (point < 1) {
    digits = '0' + digits;
    point++;
  }
  const keep = point + decimals;
  let kept = digits.slice(0, keep);
  while (kept.length < keep) kept += '0';
  if (digits.charCodeAt(keep) >= 53) {
    // Carry the rounding from the last kept digit leftwards.
    let i = keep - 1;
    let out = '';
    while (i >= 0 && kept.charAt(i) === '9') {
      out = '0' + out;
      i--;
    }
    kept = (i < 0 ? '1' : kept.slice(0, i) + String.fromCharCode(kept.charCodeAt(i) + 1)) + out;
  }
  const intLen = kept.length - decimals;
  const int = kept.slice(0, intLen).replace(/^0+(?=\d)/, '');
  const text = decimals > 0 ? int + '.' + kept.slice(intLen) : int;
  return v < 0 && /[1-9]/.test(text) ? '-' + text : text;
}

function badValue(r: Reading): Encoded {
  return { ok: false, error: 'reading ' + r.seq + ' (' + r.sensorId + '): value ' + r.value + ' is not a finite number below 1e21' };
}

/** The Data segment of a value write, before percent-encoding. */
export function encodeValue(reading: Reading, decimals: number): Encoded {
  const text = formatNumber(reading.value, reading.decimals === undefined ? decimals : reading.decimals);
  return text === undefined ? badValue(reading) : { ok: true, text };
}

/** A JSON string literal, every non-ASCII character as \uXXXX. */
export function jsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s.charAt(i);
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c < 0x20 || c > 0x7e) out += '\\u' + ('000' + c.toString(16)).slice(-4);
    else out += ch;
  }
  return out + '"';
}

/** Escapes text and attribute values; non-ASCII as &#x...; references. */
export function escapeXml(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    const ch = s.charAt(i);
    if (ch === '&') out += '&amp;';
    else if (ch === '<') out += '&lt;';
    else if (ch === '>') out += '&gt;';
    else if (ch === '"') out += '&quot;';
    else if (ch === "'") out += '&apos;';
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else {
      c = codeAt(s, i);
      if (c > 0xffff) i++;
      // XML 1.0 forbids other control characters even as references.
      if (c < 0x20 && c !== 9 && c !== 10 && c !== 13) c = 0xfffd;
      out += '&#x' + c.toString(16).toUpperCase() + ';';
    }
  }
  return out;
}

/** A safe element name: ASCII letter or '_' first, then letters, digits, '_', '-', '.'; not xml*. */
export function isXmlName(s: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(s) && !/^xml/i.test(s);
}

interface Group {
  names: string[];
  values: string[];
  units: string[];
  last: Reading;
}

function groups(readings: Reading[], decimals: number, split: boolean): Group[] | Encoded {
  const out: Group[] = [];
  let g: Group | undefined;
  for (const r of readings) {
    const text = formatNumber(r.value, r.decimals === undefined ? decimals : r.decimals);
    if (text === undefined) return badValue(r);
    if (formatNumber(r.seq, 0) === undefined || formatNumber(r.uptimeMs, 0) === undefined) {
      return { ok: false, error: 'reading ' + r.seq + ' (' + r.sensorId + '): seq and uptimeMs must be finite' };
    }
    if (META.indexOf(r.sensorId) >= 0) {
      return { ok: false, error: 'sensor name ' + jsonString(r.sensorId) + ' clashes with the field ' + r.sensorId };
    }
    let at = g ? g.names.indexOf(r.sensorId) : -1;
    if (!g || (split && at >= 0)) {
      g = { names: [], values: [], units: [], last: r };
      out.push(g);
      at = -1;
    }
    if (at < 0) {
      at = g.names.length;
      g.names.push(r.sensorId);
    }
    g.values[at] = text;
    g.units[at] = r.unit;
    if (r.seq >= g.last.seq) g.last = r;
  }
  if (!g) return { ok: false, error: 'no readings to encode' };
  return out;
}

function isoTime(r: Reading): string | undefined {
  const ms = r.wallMs;
  return ms !== undefined && isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : undefined;
}

function decimalsOf(device: DeviceConfig): number {
  return device.decimals === undefined ? 2 : device.decimals;
}

/** The body of a JSON write; see the top of this file for the shape. */
export function encodeJson(device: DeviceConfig, readings: Reading[]): Encoded {
  const gs = groups(readings, decimalsOf(device), (device.batch || 1) > 1);
  if (!Array.isArray(gs)) return gs;
  const parts: string[] = [];
  for (const g of gs) {
    let s = '{';
    for (let i = 0; i < g.names.length; i++) s += jsonString(g.names[i] as string) + ':' + g.values[i] + ',';
    s += '"seq":' + formatNumber(g.last.seq, 0) + ',"uptime_ms":' + formatNumber(g.last.uptimeMs, 0);
    const ts = isoTime(g.last);
    parts.push(s + (ts ? ',"ts":"' + ts + '"' : '') + '}');
  }
  return { ok: true, text: parts.length > 1 ? '[' + parts.join(',') + ']' : (parts[0] as string) };
}

/** The body of an XML write; see the top of this file for the shape. */
export function encodeXml(device: DeviceConfig, readings: Reading[]): Encoded {
  const gs = groups(readings, decimalsOf(device), false);
  if (!Array.isArray(gs)) return gs;
  const g = gs[0] as Group;
  const ts = isoTime(g.last);
  let s = '<reading seq="' + formatNumber(g.last.seq, 0) + '" uptime_ms="' + formatNumber(g.last.uptimeMs, 0) + '"';
  s += (ts ? ' ts="' + ts + '"' : '') + '>';
  for (let i = 0; i < g.names.length; i++) {
    const name = g.names[i] as string;
    if (!isXmlName(name)) {
      return { ok: false, error: 'sensor name ' + jsonString(name) + ' is not a valid XML element name' };
    }
    const unit = g.units[i] as string;
    s += '<' + name + (unit ? ' unit="' + escapeXml(unit) + '"' : '') + '>' + g.values[i] + '</' + name + '>';
  }
  return { ok: true, text: s + '</reading>' };
}
