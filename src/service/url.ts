// The service's base URL and the paths under it. Every input except a write
// body travels as a path segment, so each segment is percent-encoded byte by
// byte: no value can add a segment, a query or a fragment.

import { utf8 } from './utf8';

export type BaseUrl = { ok: true; host: string; port: number; prefix: string } | { ok: false; error: string };

const HEX = '0123456789ABCDEF';
const UNRESERVED = /[A-Za-z0-9._~-]/;
// Path characters RFC 3986 allows unencoded, plus '%' for existing escapes.
const PREFIX_CHARS = /^[A-Za-z0-9._~!$&'()*+,;=:@/%-]*$/;

function bad(rule: string): BaseUrl {
  return { ok: false, error: 'service.url: ' + rule };
}

/** Parses `http://host[:port][/prefix]`; the prefix keeps no trailing slash. */
export function parseBaseUrl(url: string): BaseUrl {
  const s = url.trim();
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(s);
  if (!scheme) return bad('must start with http:// (e.g. http://192.168.1.10:8080)');
  const name = (scheme[1] as string).toLowerCase();
  if (name === 'https') return bad('https is not supported (no TLS on the device); use http:// or a local TLS gateway');
  if (name !== 'http') return bad('scheme ' + name + ':// is not supported; use http://');
  const rest = s.slice(scheme[0].length);
  if (rest.indexOf('?') >= 0) return bad('must not contain a query (?...)');
  if (rest.indexOf('#') >= 0) return bad('must not contain a fragment (#...)');
  const slash = rest.indexOf('/');
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  let path = slash < 0 ? '' : rest.slice(slash);
  if (authority.indexOf('@') >= 0) return bad('must not contain user info (user@); the API key goes in the path');
  const m = /^([A-Za-z0-9.-]+)(?::(\d*))?$/.exec(authority);
  if (!m) return bad('host must be a name or IPv4 address of letters, digits, dots and dashes');
  let port = 80;
  if (m[2] !== undefined) {
    port = m[2] === '' ? NaN : Number(m[2]);
    if (!(port >= 1 && port <= 65535)) return bad('port must be a whole number from 1 to 65535');
  }
  if (!PREFIX_CHARS.test(path) || /%(?![0-9A-Fa-f]{2})/.test(path)) {
    return bad('path may hold only letters, digits, - . _ ~ / and %XX escapes');
  }
  while (path.charAt(path.length - 1) === '/') path = path.slice(0, -1);
  return { ok: true, host: m[1] as string, port, prefix: path };
}

/**
 * Percent-encodes the UTF-8 bytes of everything outside A-Z a-z 0-9 - . _ ~.
 * The dot-only segments '.' and '..' are encoded too so a literal path never
 * holds a dot segment (some servers still normalise %2E: the client refuses
 * such values before they get here).
 */
export function encodeSegment(s: string): string {
  const dots = s === '.' || s === '..';
  // Keys, ids and numbers are plain ASCII: no byte-by-byte work for them.
  if (!dots && /^[A-Za-z0-9._~-]*$/.test(s)) return s;
  let out = '';
  utf8(s, (b) => {
    const ch = String.fromCharCode(b);
    out += b < 0x80 && !dots && UNRESERVED.test(ch) ? ch : '%' + HEX.charAt(b >> 4) + HEX.charAt(b & 15);
  });
  return out;
}

/** `${prefix}/api/${op}/${segments, each encoded, joined by '/'}`. */
export function apiPath(prefix: string, op: string, segments: string[]): string {
  return prefix + '/api/' + op + '/' + segments.map(encodeSegment).join('/');
}
