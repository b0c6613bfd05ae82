// Tolerant reading of the replies the spec leaves open ("not shown"). No
// parser guesses silently: each returns what it found plus a short `note` on
// what it got, for the log.
//
// Error rule: a 2xx reply to a write, a key generation, a device creation or
// a value read "clearly signals an error" when
//   - it is a JSON object with a top-level field named err or error* that is
//     not empty/false/null, or success/ok set to false, or a status string
//     starting with "error" or "fail";
//   - it is XML whose root element or a leaf element is named error*
//     (non-empty);
//   - it is text starting with error, invalid, fail, wrong, denied,
//     unauthorized/unauthorised, forbidden, "not found" or "no such".
// JSON and XML reads return the device's own data, which may hold such words,
// so the rule does not apply to them.

import { utf8Length } from './utf8';

export type Found<T> = { ok: true; value: T; note: string } | { ok: false; error: string; note: string };

export type Pair = [string, string];

export function shape(body: string): { kind: 'empty' | 'json' | 'xml' | 'text'; json?: unknown } {
  const t = body.trim();
  if (!t) return { kind: 'empty' };
  const c = t.charAt(0);
  if (c === '{' || c === '[' || c === '"') {
    try {
      return { kind: 'json', json: JSON.parse(t) };
    } catch {
      // Not JSON after all: described as text below.
    }
  }
  return { kind: c === '<' ? 'xml' : 'text' };
}

/**
 * One line on a reply: kind, size and the first characters of `shown` (the
 * body with secrets already masked, so truncation cannot cut a secret out of
 * reach of the mask); with `shown` false, only JSON field names.
 */
export function describeBody(body: string, shown?: string | false): string {
  const s = shape(body);
  let d = s.kind + ' ' + utf8Length(body) + ' bytes';
  if (shown === false) {
    if (isPlain(s.json)) d += ' (fields: ' + Object.keys(s.json).slice(0, 8).join(', ') + ')';
  } else if (s.kind !== 'empty') {
    let t = (shown === undefined ? body : shown).trim();
    const cut = t.length > 60;
    if (cut) t = t.slice(0, 60);
    // Control characters would garble the console line the note ends up on.
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c < 32 || c === 127) t = t.slice(0, i) + '?' + t.slice(i + 1);
    }
    d += ': ' + t + (cut ? '…' : '');
  }
  return d;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

// Indexed loops: a for-of makes an iterator and a result object per step.
function jsonPairs(v: unknown, out: Pair[], depth: number): void {
  let kids: unknown[] = [];
  if (Array.isArray(v)) {
    kids = v;
  } else if (isPlain(v)) {
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const x = v[k];
      if (x !== null && typeof x !== 'object') out.push([k, typeof x === 'string' ? x : String(JSON.stringify(x))]);
      else kids.push(x);
    }
  }
  // Nested fields come after every top-level one so the top level wins.
  if (depth > 0) for (let i = 0; i < kids.length; i++) if (isPlain(kids[i])) jsonPairs(kids[i], out, depth - 1);
}

// The XML patterns are made when used (new RegExp): a literal stays compiled
// with its function's code in every running agent, and a reply is seldom XML.

/** Unescapes the five named entities and numeric character references. */
export function unescapeXml(s: string): string {
  return s.replace(new RegExp('&(lt|gt|amp|quot|apos|#x[0-9A-Fa-f]+|#[0-9]+);', 'g'), (all, e: string) => {
    const named = ['<', '>', '&', '"', "'"][['lt', 'gt', 'amp', 'quot', 'apos'].indexOf(e)];
    if (named !== undefined) return named;
    let c = e.charAt(1) === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    if (!(c <= 0x10ffff) || (c >= 0xd800 && c <= 0xdfff)) c = 0xfffd;
    if (c < 0x10000) return String.fromCharCode(c);
    c -= 0x10000;
    return String.fromCharCode(0xd800 + (c >> 10), 0xdc00 + (c & 1023));
  });
}

function xmlPairs(body: string): Pair[] {
  const out: Pair[] = [];
  const leaf = new RegExp('<([A-Za-z_][\\w.:-]*)(?:\\s[^<>]*)?>([^<]*)</\\1\\s*>', 'g');
  let m: RegExpExecArray | null;
  while ((m = leaf.exec(body))) out.push([m[1] as string, unescapeXml(m[2] as string).trim()]);
  const tag = new RegExp('<[A-Za-z_][^<>]*>', 'g');
  while ((m = tag.exec(body))) {
    const attr = new RegExp('([A-Za-z_][\\w.:-]*)\\s*=\\s*(?:"([^"]*)"|\'([^\']*)\')', 'g');
    let a: RegExpExecArray | null;
    while ((a = attr.exec(m[0]))) out.push([a[1] as string, unescapeXml(a[2] !== undefined ? a[2] : (a[3] as string)).trim()]);
  }
  return out;
}

export function pairsOf(body: string): Pair[] {
  const s = shape(body);
  const out: Pair[] = [];
  if (s.kind === 'json') jsonPairs(s.json, out, 1);
  if (s.kind === 'xml') return xmlPairs(body);
  return out;
}

export function rootName(body: string): string | undefined {
  const m = new RegExp('^\\s*(?:<\\?[\\s\\S]*?\\?>\\s*)?(?:<!--[\\s\\S]*?-->\\s*)*<([A-Za-z_][\\w.:-]*)').exec(body);
  return m ? m[1] : undefined;
}

/**
 * Whether `s` starts with one of `words` (lower case, '|' between them), in
 * any ASCII case. No regular expression (its compiled form stays on the heap)
 * and no array: only short strings, freed as soon as they are compared.
 */
function starts(s: string, words: string): boolean {
  const l = s.slice(0, 12).toLowerCase();
  // 12: the longest word. A prefix that holds a '|' starts with a word anyway.
  for (let n = 1; n <= 12; n++) if (('|' + words + '|').indexOf('|' + l.slice(0, n) + '|') >= 0) return true;
  return false;
}

/** Why a reply reads as an error (see the rule at the top), or undefined. */
export function errorSignal(body: string): string | undefined {
  const s = shape(body);
  const o = s.json;
  if (isPlain(o)) {
    const keys = Object.keys(o);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const v = o[k];
      const lk = k.toLowerCase();
      if ((lk === 'err' || lk.indexOf('error') === 0) && v && !(Array.isArray(v) && !v.length)) return 'field ' + k + ' is set';
      if ((lk === 'success' || lk === 'ok') && v === false) return 'field ' + k + ' is false';
      if (lk === 'status' && typeof v === 'string' && starts(v, 'error|fail')) return 'status is ' + v;
    }
  }
  if (s.kind === 'xml') {
    const root = rootName(body);
    if (root && starts(root, 'error')) return 'root element is ' + root;
    const pairs = xmlPairs(body);
    for (let i = 0; i < pairs.length; i++) {
      const p = pairs[i] as Pair;
      if (starts(p[0], 'error') && p[1]) return 'element ' + p[0] + ' is set';
    }
  }
  if (s.kind === 'text' && starts(body.trim(), 'error|invalid|fail|wrong|denied|unauthorized|unauthorised|forbidden|not found|no such')) {
    return 'text reads as an error';
  }
  return undefined;
}

/** The reply to a write: ok unless it signals an error. */
export function parseWriteReply(body: string, shown?: string): Found<undefined> {
  const note = describeBody(body, shown);
  const error = errorSignal(body);
  return error ? { ok: false, error, note } : { ok: true, value: undefined, note };
}
