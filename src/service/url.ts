// The base URL and the paths under it. Every input but a write body is a path
// segment, percent-encoded byte by byte, so no value can add a segment, a
// query or a fragment. Loops, not regular expressions: those stay compiled on
// the heap, and every exec allocates.

import { utf8 } from './utf8';

export type BaseUrl = { ok: true; host: string; port: number; prefix: string } | { ok: false; error: string };

function bad(rule: string): BaseUrl {
  return { ok: false, error: 'service.url: ' + rule };
}

/**
 * True when every character of `s` is an ASCII digit, a letter (unless
 * `digits`) or one of `extra`.
 */
function only(s: string, extra: string, digits?: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const l = c | 32;
    if (!(c >= 48 && c <= 57) && (digits || !(l >= 97 && l <= 122)) && extra.indexOf(s.charAt(i)) < 0) return false;
  }
  return true;
}

/** Parses `http://host[:port][/prefix]`; the prefix keeps no trailing slash. */
export function parseBaseUrl(url: string): BaseUrl {
  const s = url.trim();
  const end = s.indexOf('://');
  const scheme = s.slice(0, end);
  // A letter first (digits and +.- are below 'A').
  if (end < 0 || !only(scheme, '+.-') || !(scheme.charCodeAt(0) > 64)) return bad('must start with http:// (e.g. http://192.168.1.10:8080)');
  const name = scheme.toLowerCase();
  if (name === 'https') return bad('https is not supported (no TLS on the device); use http:// or a local TLS gateway');
  if (name !== 'http') return bad('scheme ' + name + ':// is not supported; use http://');
  const rest = s.slice(end + 3);
  if (rest.indexOf('?') >= 0) return bad('must not contain a query (?...)');
  if (rest.indexOf('#') >= 0) return bad('must not contain a fragment (#...)');
  const slash = rest.indexOf('/');
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  let path = slash < 0 ? '' : rest.slice(slash);
  if (authority.indexOf('@') >= 0) return bad('must not contain user info (user@); the API key goes in the path');
  const colon = authority.indexOf(':');
  const host = colon < 0 ? authority : authority.slice(0, colon);
  const digits = colon < 0 ? '' : authority.slice(colon + 1);
  if (!host || !only(host, '.-') || !only(digits, '', true)) {
    return bad('host must be a name or IPv4 address of letters, digits, dots and dashes');
  }
  let port = 80;
  if (colon >= 0) {
    port = digits === '' ? NaN : Number(digits);
    if (!(port >= 1 && port <= 65535)) return bad('port must be a whole number from 1 to 65535');
  }
  // Path characters RFC 3986 allows unencoded, plus '%' for existing escapes.
  let ok = only(path, "-._~!$&'()*+,;=:@/%");
  for (let i = path.indexOf('%'); ok && i >= 0; i = path.indexOf('%', i + 1)) {
    // Only path characters are left, none of them blank: a hex number or NaN.
    ok = path.length > i + 2 && !isNaN(Number('0x' + path.substr(i + 1, 2)));
  }
  if (!ok) return bad('path may hold only letters, digits, - . _ ~ / and %XX escapes');
  while (path.charAt(path.length - 1) === '/') path = path.slice(0, -1);
  return { ok: true, host, port, prefix: path };
}

/**
 * Percent-encodes the UTF-8 bytes of everything outside A-Z a-z 0-9 - . _ ~,
 * and '.' and '..' too, so a path never holds a dot segment.
 */
export function encodeSegment(s: string): string {
  const dots = s === '.' || s === '..';
  // Keys, ids and numbers are plain ASCII: no byte-by-byte work for them.
  if (!dots && only(s, '-._~')) return s;
  let out = '';
  utf8(s, (b) => {
    const ch = String.fromCharCode(b);
    out += b < 0x80 && !dots && only(ch, '-._~') ? ch : '%' + '0123456789ABCDEF'.charAt(b >> 4) + '0123456789ABCDEF'.charAt(b & 15);
  });
  return out;
}

/** `${prefix}/api/${op}/${segments, each encoded, joined by '/'}`. */
export function apiPath(prefix: string, op: string, segments: string[]): string {
  return prefix + '/api/' + op + '/' + segments.map(encodeSegment).join('/');
}
