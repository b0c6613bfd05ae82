// The Device Data Service client: each write resolves, never rejects, to an
// outcome (docs/architecture.md, Delivery). A garbled reply is a retry (as
// likely a passing fault as a wrong server); a reply too large is a reject,
// since asking again would block the queue. Secrets are masked in every
// reason, raw or percent-encoded; a device's PIN wherever it stands as a
// number of its own (a reply may echo the request's path).

import type { HttpClient, HttpRequest, HttpResult } from '../net/types';
import type { Log } from '../ports/ports';
import { parseRetryAfter } from './http-date';
import type { Found } from './parse';
import { describeBody, parseWriteReply } from './parse';
import { refusalKind } from './refusal';
import { apiPath, encodeSegment, parseBaseUrl } from './url';

export interface DeviceRef {
  apiKey: string;
  deviceId: number;
  devicePin: number;
}

export type Outcome<T> =
  | { kind: 'ok'; status: number; value: T; note: string; bytesSent: number; date?: string }
  | { kind: 'retry'; reason: string; retryAfterMs?: number; status?: number; bytesSent: number }
  | { kind: 'reject'; reason: string; status?: number; bytesSent: number }
  | { kind: 'hold'; reason: string; status?: number; bytesSent: number };

export interface ServiceClient {
  writeValue(dev: DeviceRef, text: string): Promise<Outcome<undefined>>;
  /** `made`: the caller's own encoders made the text, so it is not parsed again: a batch's tree is large. */
  writeJson(dev: DeviceRef, json: string, made?: boolean): Promise<Outcome<undefined>>;
  /** Not checked here: the console's client (withReads, src/service/reads.ts) checks XML it did not make. */
  writeXml(dev: DeviceRef, xml: string, made?: boolean): Promise<Outcome<undefined>>;
  /** Any operation: what the write methods use, and what reads.ts builds on. */
  call<T>(c: Call<T>): Promise<Outcome<T>>;
}

/**
 * `abcd…(32)`: the first 4 characters and the length. Below 8 characters the
 * first 4 would give most of the secret away, so only the length shows.
 */
export function maskSecret(s: string): string {
  return (s.length >= 8 ? s.slice(0, 4) : '') + '…(' + s.length + ')';
}

/** A device's PIN as messages show it: not a digit of it, nor its length. */
const PIN_SHOWN = '***';

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * `text` with every PIN of `pins` that stands as a number of its own (no
 * digit either side) replaced: a reply quoting the request's path names it
 * so, while a reading of 12345 keeps its digits when the PIN is 1234.
 */
function hidePins(text: string, pins: string[]): string {
  for (let i = 0; i < pins.length; i++) {
    const p = pins[i] as string;
    if (!p) continue;
    let at = text.indexOf(p);
    while (at >= 0) {
      const end = at + p.length;
      if (!isDigit(text.charCodeAt(at - 1)) && !isDigit(text.charCodeAt(end))) {
        text = text.slice(0, at) + PIN_SHOWN + text.slice(end);
        at = text.indexOf(p, at + PIN_SHOWN.length);
      } else at = text.indexOf(p, at + 1);
    }
  }
  return text;
}

export interface Call<T> {
  op: string;
  /** [field name, value] per path segment, in order. */
  segments: [string, string][];
  /** Values to mask in every message; a parser may add what it finds. */
  secrets: string[];
  /** Secrets shown by length only, not even their first characters (account passwords). */
  whole?: string[];
  /** Taken by the request once it is issued (set to undefined), so the call does not hold it through the reply. */
  body?: string;
  contentType?: string;
  /** A problem found before any I/O. */
  problem?: string;
  /** A refusal may hold (refusal.ts): the writes, whose records wait while their device is held. */
  holds?: boolean;
  /** `shown` is the body with the secrets masked, for quoting. */
  read(body: string, shown: string, secrets: string[]): Found<T> & { odd?: boolean };
}

export function devSegments(dev: DeviceRef): [string, string][] {
  return [
    ['apiKey', dev.apiKey],
    ['deviceId', String(dev.deviceId)],
    ['devicePin', String(dev.devicePin)],
  ];
}

export function devProblem(dev: DeviceRef): string | undefined {
  // Indexed: a for-of over an array makes an iterator and a result per step.
  for (let i = 0; i < 2; i++) {
    const f = i ? 'devicePin' : 'deviceId';
    const v = dev[f];
    if (typeof v !== 'number' || !(v >= 0 && v <= 9007199254740991 && v % 1 === 0)) {
      return f + ' must be a whole number from 0 (got ' + String(v) + ')';
    }
  }
  return undefined;
}

export function createServiceClient(o: { http: HttpClient; baseUrl: string; log?: Log }): { ok: true; client: ServiceClient } | { ok: false; error: string } {
  const base = parseBaseUrl(o.baseUrl);
  if (!base.ok) return base;
  const { host, port, prefix } = base;

  function maskOf(c: { whole?: string[] }, s: string): string {
    return c.whole && c.whole.indexOf(s) >= 0 ? '\u2026(' + s.length + ')' : maskSecret(s);
  }

  function hide(text: string, c: { secrets: string[]; whole?: string[] }): string {
    for (let i = 0; i < c.secrets.length; i++) {
      const s = c.secrets[i];
      if (!s) continue;
      // Looked for first: a split and join would copy the text for nothing.
      if (text.indexOf(s) >= 0) text = text.split(s).join(maskOf(c, s));
      const enc = encodeSegment(s);
      if (enc !== s && text.indexOf(enc) >= 0) text = text.split(enc).join(maskOf(c, s));
    }
    return text;
  }

  // The body moves into the request and on to the socket, not held through the reply.
  function requestOf(c: Call<unknown>, values: string[]): HttpRequest {
    const req: HttpRequest = { method: c.body === undefined ? 'GET' : 'POST', host, port, path: apiPath(prefix, c.op, values), body: c.body, contentType: c.contentType };
    c.body = undefined;
    return req;
  }

  async function run<T>(c: Call<T>): Promise<Outcome<T>> {
    let problem = c.problem;
    const values: string[] = [];
    // The segments named '...Pin' (devicePin): masked as whole numbers.
    const pins: string[] = [];
    for (let i = 0; i < c.segments.length && !problem; i++) {
      const field = (c.segments[i] as [string, string])[0];
      const v = (c.segments[i] as [string, string])[1];
      values.push(v);
      if (field.slice(-3) === 'Pin') pins.push(v);
      if (typeof v !== 'string' || !v) problem = field + ' is empty';
      else if (v === '.' || v === '..') problem = field + ' must not be "." or ".."';
    }
    if (problem) return { kind: 'reject', reason: problem, bytesSent: 0 };
    const h = (text: string): string => hidePins(hide(text, c), pins);
    let r: HttpResult;
    try {
      r = await o.http.request(requestOf(c, values));
    } catch (e) {
      // A contract breach in the HTTP layer; the data is kept for a later try.
      return { kind: 'retry', reason: h('http client failed: ' + String(e)), bytesSent: 0 };
    }
    const bytesSent = r.bytesSent;
    if (r.kind === 'failure') {
      const reason = h(r.failure + ': ' + r.reason);
      return r.failure === 'too-large' ? { kind: 'reject', reason, bytesSent } : { kind: 'retry', reason, bytesSent };
    }
    const status = r.status;
    const head = 'HTTP ' + status + (r.reason ? ' ' + r.reason : '');
    if (status >= 200 && status < 300) {
      const f = c.read(r.body, h(r.body), c.secrets);
      const told = h(f.ok ? head + ', ' + f.note : head + ': ' + f.error + ' (' + f.note + ')');
      if ((!f.ok || f.odd) && o.log) {
        const shown = values.map((v) => (c.secrets.indexOf(v) >= 0 ? maskOf(c, v) : pins.indexOf(v) >= 0 ? PIN_SHOWN : encodeSegment(v)));
        o.log.info('service: unexpected reply to ' + prefix + '/api/' + c.op + '/' + shown.join('/') + ': ' + told);
      }
      if (!f.ok) return { kind: c.holds ? refusalKind(status, r.body) : 'reject', reason: told, status, bytesSent };
      const date = r.headers['date'];
      const ok: Outcome<T> = { kind: 'ok', status, value: f.value, note: told, bytesSent };
      if (date !== undefined) ok.date = date;
      return ok;
    }
    const reason = h(head + ': ' + describeBody(r.body, h(r.body)));
    if (status === 408 || status === 425 || status === 429 || status >= 500) {
      const out: Outcome<T> = { kind: 'retry', reason, status, bytesSent };
      const after = parseRetryAfter(r.headers['retry-after'], r.headers['date']);
      if (after !== undefined) out.retryAfterMs = after;
      return out;
    }
    return { kind: c.holds ? refusalKind(status, r.body) : 'reject', reason, status, bytesSent };
  }

  // The three writes in one function: `kind` names the operation and the body's type.
  function write(kind: string, dev: DeviceRef, text: string, made?: boolean): Promise<Outcome<undefined>> {
    const segments = devSegments(dev);
    let problem = devProblem(dev);
    let body: string | undefined;
    if (kind === 'value') segments.push(['data', text]);
    else {
      body = text;
      if (problem) {
        // Reported first, as the value write does.
      } else if (typeof text !== 'string' || !text.trim()) problem = kind + ' is empty';
      else if (!made && kind === 'json') {
        // Encoded by the caller (made): not parsed again (see ServiceClient).
        // XML not made here is checked by the console's client (withReads).
        try {
          JSON.parse(text);
        } catch {
          problem = 'json is not valid JSON';
        }
      }
    }
    return run({
      op: 'updatedevice' + kind,
      segments,
      secrets: [dev.apiKey],
      body,
      contentType: body === undefined ? undefined : 'application/' + kind,
      problem,
      holds: true,
      read: parseWriteReply,
    });
  }

  const client: ServiceClient = {
    writeValue: write.bind(null, 'value'),
    writeJson: write.bind(null, 'json'),
    writeXml: write.bind(null, 'xml'),
    call: run,
  };
  return { ok: true, client };
}
