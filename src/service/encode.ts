// Payloads of one write for the three device formats, ASCII only:
//   Value `21.50` (the Data path segment);
//   JSON  {"temp":21.50,"hum":40.25,"seq":12,"uptime_ms":3400};
//   XML   <reading seq="12" uptime_ms="3400"><temp unit="C">21.50</temp></reading>.
// The wall-clock "ts" is added at send time once known (stamp.ts), and a JSON
// batch is the uplink joining several records' objects into an array.

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

/**
 * The payload of one write to `device` in `format` (its own by default): the
 * value of each sensor (a sensor given twice: its later reading), `seq`, and
 * the latest uptime of the readings. One function for the three formats:
 * every function costs heap.
 */
export function encodeFor(device: DeviceConfig, readings: Reading[], seq: number, format: DataFormat = device.format): Encoded {
  const decimals = device.decimals === undefined ? 2 : device.decimals;
  const xml = format === 'XML';
  const names: string[] = [];
  const values: string[] = [];
  const units: string[] = [];
  let up = -Infinity;
  for (const r of readings) {
    const id = r.sensorId;
    const text = formatNumber(r.value, r.decimals === undefined ? decimals : r.decimals);
    if (text === undefined) return { ok: false, error: 'sensor ' + id + ': value ' + r.value + ' is not a finite number below 1e21' };
    if (format === 'Value') return { ok: true, text };
    if (formatNumber(r.uptimeMs, 0) === undefined) return { ok: false, error: 'sensor ' + id + ': uptimeMs ' + r.uptimeMs + ' is not a finite number below 1e21' };
    if (id === 'seq' || id === 'uptime_ms' || id === 'ts') return { ok: false, error: 'sensor name ' + escape(id, false) + ' clashes with the field ' + id };
    if (xml && !isXmlName(id)) return { ok: false, error: 'sensor name ' + escape(id, false) + ' is not a valid XML element name' };
    let at = names.indexOf(id);
    if (at < 0) at = names.push(id) - 1;
    values[at] = text;
    units[at] = r.unit;
    if (r.uptimeMs > up) up = r.uptimeMs;
  }
  if (!names.length) return { ok: false, error: 'no readings to encode' };
  const s = formatNumber(seq, 0);
  if (s === undefined) return { ok: false, error: 'seq ' + seq + ' is not a finite number below 1e21' };
  const ms = formatNumber(up, 0) as string;
  let out = xml ? '<reading seq="' + s + '" uptime_ms="' + ms + '">' : '{';
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const unit = units[i];
    out += xml ? '<' + name + (unit ? ' unit="' + escape(unit, true) + '"' : '') + '>' + values[i] + '</' + name + '>' : escape(name, false) + ':' + values[i] + ',';
  }
  return { ok: true, text: xml ? out + '</reading>' : out + '"seq":' + s + ',"uptime_ms":' + ms + '}' };
}

/** The Data segment of a value write, before percent-encoding. */
export function encodeValue(reading: Reading, decimals: number): Encoded {
  return encodeFor({ decimals } as DeviceConfig, [reading], 0, 'Value');
}

/** The body of a JSON write. */
export function encodeJson(device: DeviceConfig, readings: Reading[], seq: number): Encoded {
  return encodeFor(device, readings, seq, 'JSON');
}

/** The body of an XML write. */
export function encodeXml(device: DeviceConfig, readings: Reading[], seq: number): Encoded {
  return encodeFor(device, readings, seq, 'XML');
}
