// Payloads for the three device formats, ASCII only:
//   Value `21.50` (the Data path segment);
//   JSON  {"temp":21.50,"hum":40.25,"seq":12,"uptime_ms":3400,"ts":"2026-11-22T08:05:00.000Z"};
//   XML   <reading seq="12" uptime_ms="3400" ts="..."><temp unit="C">21.50</temp></reading>.
// A JSON batch is an array of such objects, oldest first; ts only when the
// wall-clock time is known (stamp.ts adds it at send time).

import type { DataFormat, DeviceConfig, Reading } from '../model';
import { codeAt } from './utf8';

export type Encoded = { ok: true; text: string } | { ok: false; error: string };


/**
 * `v` with exactly `decimals` digits after the point, never in exponent
 * notation nor '-0'. Rounds half away from zero on the digits String(v) shows
 * (1.005 gives '1.01', as a person expects; toFixed works on the binary value
 * and engines disagree on it). NaN, ±Infinity and |v| ≥ 1e21 give undefined.
 */
export function formatNumber(v: number, decimals: number): string | undefined {
  if (!isFinite(v) || Math.abs(v) >= 1e21 || !(decimals >= 0 && decimals <= 6 && decimals % 1 === 0)) {
    return undefined;
  }
  // The shortest form is digits, maybe a point and more digits, maybe an exponent.
  let digits = String(Math.abs(v));
  const e = digits.indexOf('e');
  // Index in `digits` where the integer part ends.
  let point = e < 0 ? 0 : +digits.slice(e + 1);
  if (e >= 0) digits = digits.slice(0, e);
  const dot = digits.indexOf('.');
  point += dot < 0 ? digits.length : dot;
  if (dot >= 0) digits = digits.slice(0, dot) + digits.slice(dot + 1);
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
  let z = 0;
  while (z < intLen - 1 && kept.charAt(z) === '0') z++;
  const text = kept.slice(z, intLen) + (decimals > 0 ? '.' + kept.slice(intLen) : '');
  // No '-0': the sign only on a text that is not all zeros.
  return v < 0 && +text ? '-' + text : text;
}

/** A JSON string literal, every non-ASCII character as \uXXXX. */
export function jsonString(s: string): string {
  return escape(s, false);
}

/** Escapes text and attribute values; non-ASCII as &#x...; references. */
export function escapeXml(s: string): string {
  return escape(s, true);
}

const ENTITIES = ['&amp;', '&lt;', '&gt;', '&quot;', '&apos;'];

/** Both escapes in one function: on the device's engine every function costs heap. */
function escape(s: string, xml: boolean): string {
  let out = xml ? '' : '"';
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    const ch = s.charAt(i);
    const k = (xml ? '&<>"\'' : '"\\').indexOf(ch);
    if (k >= 0) out += xml ? ENTITIES[k] : '\\' + ch;
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else if (!xml) out += c === 10 ? '\\n' : c === 13 ? '\\r' : c === 9 ? '\\t' : '\\u' + ('000' + c.toString(16)).slice(-4);
    else {
      c = codeAt(s, i);
      if (c > 0xffff) i++;
      // XML 1.0 forbids other control characters even as references.
      if (c < 0x20 && c !== 9 && c !== 10 && c !== 13) c = 0xfffd;
      out += '&#x' + c.toString(16).toUpperCase() + ';';
    }
  }
  return xml ? out : out + '"';
}

/** A safe element name: ASCII letter or '_' first, then letters, digits, '_', '-', '.'; not xml*. */
export function isXmlName(s: string): boolean {
  let ok = s !== '' && s.slice(0, 3).toLowerCase() !== 'xml';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const l = c | 32;
    ok = ok && ((l >= 97 && l <= 122) || c === 95 || (i > 0 && ((c >= 48 && c <= 57) || c === 45 || c === 46)));
  }
  return ok;
}

interface Group {
  names: string[];
  values: string[];
  units: string[];
  last: Reading;
}

/**
 * The payload of one write to `device` in `format` (its own by default).
 * One function for the three formats: every function costs heap.
 */
export function encodeFor(device: DeviceConfig, readings: Reading[], format: DataFormat = device.format): Encoded {
  const decimals = device.decimals === undefined ? 2 : device.decimals;
  const gs: Group[] = [];
  let g: Group | undefined;
  for (const r of readings) {
    const text = formatNumber(r.value, r.decimals === undefined ? decimals : r.decimals);
    if (text === undefined) {
      return { ok: false, error: 'reading ' + r.seq + ' (' + r.sensorId + '): value ' + r.value + ' is not a finite number below 1e21' };
    }
    if (format === 'Value') return { ok: true, text };
    if (formatNumber(r.seq, 0) === undefined || formatNumber(r.uptimeMs, 0) === undefined) {
      return { ok: false, error: 'reading ' + r.seq + ' (' + r.sensorId + '): seq and uptimeMs must be finite' };
    }
    if (r.sensorId === 'seq' || r.sensorId === 'uptime_ms' || r.sensorId === 'ts') {
      return { ok: false, error: 'sensor name ' + escape(r.sensorId, false) + ' clashes with the field ' + r.sensorId };
    }
    let at = g ? g.names.indexOf(r.sensorId) : -1;
    // With batch > 1, a sensor seen a second time starts the next sample group.
    if (!g || (at >= 0 && format === 'JSON' && (device.batch || 1) > 1)) {
      g = { names: [], values: [], units: [], last: r };
      gs.push(g);
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
  const xml = format === 'XML';
  let out = '';
  for (let k = 0; k < (xml ? 1 : gs.length); k++) {
    g = gs[k]!;
    const ms = g.last.wallMs;
    const ts = ms !== undefined && isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : undefined;
    const seq = formatNumber(g.last.seq, 0)!;
    const up = formatNumber(g.last.uptimeMs, 0)!;
    if (xml) out = '<reading seq="' + seq + '" uptime_ms="' + up + '"' + (ts ? ' ts="' + ts + '"' : '') + '>';
    else out += (k ? ',{' : '{');
    for (let i = 0; i < g.names.length; i++) {
      const name = g.names[i]!;
      if (!xml) out += escape(name, false) + ':' + g.values[i] + ',';
      else if (!isXmlName(name)) return { ok: false, error: 'sensor name ' + escape(name, false) + ' is not a valid XML element name' };
      else {
        const unit = g.units[i]!;
        out += '<' + name + (unit ? ' unit="' + escape(unit, true) + '"' : '') + '>' + g.values[i] + '</' + name + '>';
      }
    }
    if (!xml) out += '"seq":' + seq + ',"uptime_ms":' + up + (ts ? ',"ts":"' + ts + '"' : '') + '}';
  }
  return { ok: true, text: xml ? out + '</reading>' : gs.length > 1 ? '[' + out + ']' : out };
}

/** The Data segment of a value write, before percent-encoding. */
export function encodeValue(reading: Reading, decimals: number): Encoded {
  return encodeFor({ decimals } as DeviceConfig, [reading], 'Value');
}

/** The body of a JSON write. */
export function encodeJson(device: DeviceConfig, readings: Reading[]): Encoded {
  return encodeFor(device, readings, 'JSON');
}

/** The body of an XML write. */
export function encodeXml(device: DeviceConfig, readings: Reading[]): Encoded {
  return encodeFor(device, readings, 'XML');
}
