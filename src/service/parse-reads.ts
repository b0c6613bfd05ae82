// Replies to the operations only console commands use (cold code).
import type { Found } from './parse';
import { describeBody, pairsOf, parseWriteReply, rootName, shape, unescapeXml } from './parse';

/**
 * The API key from a key-generation reply: a JSON field whose name contains
 * "key" (top level, then one level down), an XML element or attribute named
 * so, or a text that is one token of 8..128 [A-Za-z0-9_-], possibly after a
 * label ending in ':' or '='. Notes never quote the body: it holds the key.
 */
export function parseApiKey(body: string): { apiKey?: string; note: string } {
  const note = describeBody(body, false);
  for (const p of pairsOf(body)) {
    if (/key/i.test(p[0]) && /^[!-~]{1,256}$/.test(p[1])) return { apiKey: p[1], note: note + ', key in ' + p[0] };
  }
  const sh = shape(body);
  if (sh.kind === 'text' || typeof sh.json === 'string') {
    const m = /^(?:[^:=]*[:=])?\s*["']?([A-Za-z0-9_-]{8,128})["']?$/.exec(typeof sh.json === 'string' ? sh.json : body.trim());
    if (m) return { apiKey: m[1], note: note + ', key as a token' };
  }
  return { note: note + ', no key found' };
}

function toId(s: string | undefined): number | undefined {
  return s !== undefined && /^\d{1,15}$/.test(s.trim()) ? Number(s) : undefined;
}

/**
 * DeviceID and DevicePIN (any case, '_' or '-' allowed inside) from a
 * create-device reply. The note does not quote the body: it holds the PIN.
 */
export function parseDeviceCreated(body: string): { deviceId?: number; devicePin?: number; note: string } {
  let id: string | undefined;
  let pin: string | undefined;
  for (const p of pairsOf(body)) {
    const n = p[0].toLowerCase().replace(/[_ -]/g, '');
    if (n === 'deviceid' && id === undefined) id = p[1];
    if (n === 'devicepin' && pin === undefined) pin = p[1];
  }
  if (shape(body).kind === 'text') {
    const i = /device[ _-]?id\s*[:=]?\s*(\d+)/i.exec(body);
    const q = /device[ _-]?pin\s*[:=]?\s*(\d+)/i.exec(body);
    id = i ? i[1] : undefined;
    pin = q ? q[1] : undefined;
  }
  const deviceId = toId(id);
  const devicePin = toId(pin);
  const note =
    describeBody(body, false) + ', DeviceID ' + (deviceId === undefined ? 'missing' : deviceId) + ', DevicePIN ' + (devicePin === undefined ? 'missing' : 'found');
  return { deviceId, devicePin, note };
}

/** A value read: the bare text, trimmed. */
export function parseValueRead(body: string, shown?: string): Found<string> {
  const w = parseWriteReply(body, shown);
  return w.ok ? { ok: true, value: body.trim(), note: w.note } : w;
}

/** A JSON read: the parsed document; an empty body is `{}`, as the spec says. */
export function parseJsonRead(body: string, shown?: string): Found<unknown> {
  const note = describeBody(body, shown);
  if (!body.trim()) return { ok: true, value: {}, note: 'empty body, taken as {}' };
  try {
    return { ok: true, value: JSON.parse(body), note };
  } catch {
    return { ok: false, error: 'invalid JSON', note };
  }
}

/**
 * An XML read: the text of the root element `data`, entities unescaped and
 * trimmed. When `data` holds elements rather than text, its inner markup is
 * returned as it is (the note says so); a lone CDATA section gives its text.
 */
export function parseXmlRead(body: string, shown?: string): Found<string> {
  const note = describeBody(body, shown);
  const root = rootName(body);
  if (root !== 'data') return { ok: false, error: root ? 'root element is ' + root + ', not data' : 'not XML', note };
  const m = /<data(?:\s[^<>]*?)?(?:\/>|>([\s\S]*)<\/data\s*>)\s*$/.exec(body);
  if (!m) return { ok: false, error: 'data element is not closed', note };
  const inner = (m[1] || '').trim();
  const cdata = /^<!\[CDATA\[([\s\S]*)\]\]>$/.exec(inner);
  if (cdata) return { ok: true, value: cdata[1] as string, note };
  if (inner.indexOf('<') >= 0) return { ok: true, value: inner, note: note + ', data holds markup, returned as is' };
  return { ok: true, value: unescapeXml(inner), note };
}
