// A small HTTP client over the Socket port. Kaluma's own http module
// half-closes, hangs on chunked replies and mangles headers, so we frame the
// response ourselves. Requests are HTTP/1.0 (with Host): the server closes
// the connection after its reply, and the exchange leaves the closing to it
// (Socket.release), because a socket we close first lets the server's late
// FIN close the next one on Kaluma. We close first only at a deadline.
// Nothing the server sends becomes a string unless it is well-formed UTF-8.
//
// What an exchange allocates was measured on the device's engine
// (scripts/engine/write-alloc.ts); on a heap of 180 KB every byte of this
// file's code costs heap too, for good, so the cuts are the cheap ones: no
// iterator, regular expression or copy of the request made per exchange, no
// array per event, and a reply that arrives in one segment is parsed where
// it is, without a buffer of its own.
import type { Socket, SocketFactory, TimerId, Timers } from '../ports/ports';
import { decodeUtf8 } from '../utf8';
import type { HttpClient, HttpClientOptions, HttpFailure, HttpRequest, HttpResult, HttpStats } from './types';

const CR = 13;
const LF = 10;

// Parser phases. Those below LENGTH consume whole lines.
const STATUS = 0;
const HEADER = 1;
const CHUNK_SIZE = 2;
const CHUNK_END = 3;
const TRAILER = 4;
const LENGTH = 5;
const CHUNK_DATA = 6;
const UNTIL_CLOSE = 7;

const encoder = new TextEncoder();
// Pure: the bundles that take only a helper from this file leave it out.
const EMPTY: Uint8Array = /* @__PURE__ */ new Uint8Array(0);
// A regular expression literal is a new object each time it is evaluated.
const STATUS_LINE = /^HTTP\/\d\.\d (\d\d\d)(?: (.*))?$/;
const DIGITS = /^\d+$/;
const CHUNKED = /chunked/i;

export function createHttpClient(
  o: { sockets: SocketFactory; timers: Timers } & HttpClientOptions,
): HttpClient {
  const st: HttpStats = { exchanges: 0, failures: {} };
  return {
    request: (req) => new Promise<HttpResult>((resolve) => exchange(o, st, req, resolve)),
    stats: () => st,
  };
}

function exchange(
  o: { sockets: SocketFactory; timers: Timers } & HttpClientOptions,
  st: HttpStats,
  req: HttpRequest,
  resolve: (r: HttpResult) => void,
): void {
  const timers = o.timers;
  const max = o.maxResponseBytes ?? 8192;
  let sock: Socket | undefined;
  let connected = false;
  let done = false;
  let sent = 0;
  // Raw response bytes; chunked bodies are de-framed in place, so the body is
  // always buf[bodyStart, w) and nothing beyond `max` is ever held. The first
  // segment is borrowed (read where it arrived, never written to); a second
  // one, or de-framing, copies what arrived into a buffer of its size.
  let buf = EMPTY;
  let borrowed = false;
  let n = 0;
  let p = 0;
  let scan = 0;
  let w = 0;
  let bodyStart = 0;
  let left = 0;
  let phase = STATUS;
  let status = 0;
  let reason = '';
  // Made by the status line (again after a 1xx reply).
  let headers!: Record<string, string>;
  // The request: its own string when it is ASCII, else its UTF-8 bytes.
  let out: Uint8Array | string = EMPTY;

  /** `whole`: the reply arrived in full, so the server closes (even if we refuse what it said). */
  const finish = (r: HttpResult, whole?: boolean): void => {
    if (done) return;
    done = true;
    timers.clearTimeout(timer);
    out = buf = EMPTY;
    if (sock) {
      try {
        // A whole reply: the server closes; anything else: we close now.
        if (whole) sock.release();
        else sock.destroy();
      } catch {
        // Nothing more can be done with a socket that refuses to close.
      }
    }
    st.exchanges++;
    if (r.kind === 'failure') st.failures[r.failure] = (st.failures[r.failure] || 0) + 1;
    resolve(r);
  };
  const fail = (failure: HttpFailure, why: string): void =>
    finish({ kind: 'failure', failure, reason: why, bytesSent: sent });
  const complete = (): void => {
    const body = decodeUtf8(buf.subarray(bodyStart, w));
    if (body === undefined) return finish({ kind: 'failure', failure: 'encoding', reason: 'reply body is not UTF-8', bytesSent: sent }, true);
    finish({ kind: 'response', status, reason, headers, body, bytesSent: sent }, true);
  };
  const oops = (e: unknown): void => fail(connected ? 'reset' : 'connect', message(e));

  // The port cuts the request into driver-sized writes; a refused write throws (guarded).
  const send = (s: Socket): void => {
    s.write(out);
    // Bytes either way: an ASCII string has one a character.
    sent = out.length;
    out = EMPTY;
  };

  const endOfHead = (): void => {
    if (status < 200) {
      phase = STATUS;
      return;
    }
    bodyStart = w = p;
    const te = headers['transfer-encoding'];
    const cl = headers['content-length'];
    if (status === 204 || status === 304) return complete();
    if (te !== undefined && CHUNKED.test(te)) {
      phase = CHUNK_SIZE;
    } else if (cl !== undefined) {
      if (!DIGITS.test(cl)) return fail('protocol', 'bad content-length');
      left = +cl;
      if (p + left > max) return fail('too-large', 'content-length ' + cl);
      if (left === 0) return complete();
      phase = LENGTH;
    } else {
      phase = UNTIL_CLOSE;
    }
  };

  // A head line is buf[a, z). Only the status line and the values of the
  // headers in KEEP become strings (and only when they are UTF-8): whatever
  // else a server sends costs no heap beyond the bounded buffer.
  const onLine = (a: number, z: number): void => {
    if (phase === STATUS) {
      // Only a line that starts like a status line is decoded at all.
      const line = z - a >= 12 && buf[a] === 72 && buf[a + 4] === 47 ? decodeUtf8(buf.subarray(a, z)) : undefined;
      const m = line === undefined ? null : STATUS_LINE.exec(line);
      if (!m) return fail('protocol', 'bad status line');
      status = +(m[1] as string);
      reason = m[2] ?? '';
      headers = {};
      phase = HEADER;
    } else if (phase === HEADER) {
      if (a === z) return endOfHead();
      const k = kept(buf, a, z);
      // Lines without a name are tolerated and dropped, like obsolete folding.
      if (k === undefined) return;
      let v0 = a + k.length + 1;
      let v1 = z;
      while (v0 < v1 && (buf[v0] === 32 || buf[v0] === 9)) v0++;
      while (v1 > v0 && (buf[v1 - 1] === 32 || buf[v1 - 1] === 9)) v1--;
      const v = decodeUtf8(buf.subarray(v0, v1));
      if (v === undefined) return fail('encoding', k + ' header is not UTF-8');
      const prev = headers[k];
      headers[k] = typeof prev === 'string' ? prev + ', ' + v : v;
    } else if (phase === CHUNK_SIZE) {
      let size = 0;
      let i = a;
      for (; i < z && i - a < 8; i++) {
        const d = hexDigit(buf[i] as number);
        if (d < 0) break;
        size = size * 16 + d;
      }
      if (i === a) return fail('protocol', 'bad chunk size');
      left = size;
      phase = left ? CHUNK_DATA : TRAILER;
    } else if (phase === CHUNK_END) {
      if (a !== z) return fail('protocol', 'bad chunk end');
      phase = CHUNK_SIZE;
    } else if (a === z) {
      // Trailers are read and ignored until the blank line.
      complete();
    }
  };

  const parse = (): void => {
    while (!done) {
      if (phase < LENGTH) {
        const e = buf.indexOf(LF, scan > p ? scan : p);
        if (e < 0 || e >= n) {
          scan = n;
          return;
        }
        const a = p;
        p = e + 1;
        onLine(a, e > a && buf[e - 1] === CR ? e - 1 : e);
      } else {
        const avail = n - p;
        const take = phase === UNTIL_CLOSE || left > avail ? avail : left;
        if (w !== p) {
          if (borrowed) grow(n);
          buf.copyWithin(w, p, p + take);
        }
        w += take;
        p += take;
        left -= take;
        if (phase === UNTIL_CLOSE || left > 0) return;
        if (phase === LENGTH) return complete();
        phase = CHUNK_END;
      }
    }
  };

  /** Copies what arrived into a buffer of the exchange's own, with room for `need` bytes. */
  const grow = (need: number): void => {
    const grown = new Uint8Array(Math.min(max, borrowed ? need : Math.max(need, buf.length * 2)));
    grown.set(buf.subarray(0, n));
    buf = grown;
    borrowed = false;
  };

  // One timer at a time: the connect deadline, and only if the exchange
  // outlives it connected, the rest of the whole deadline (`wait`; -1 when
  // the whole deadline comes first).
  const connectMs = o.connectTimeoutMs ?? 5000;
  const ms = o.timeoutMs ?? 15000;
  let wait = connectMs <= ms ? ms - connectMs : -1;
  const expire = (): void => {
    if (!connected && wait >= 0) return fail('timeout', 'connect');
    if (wait > 0) {
      timer = timers.setTimeout(expire, wait);
      wait = 0;
    } else fail('timeout', 'response');
  };
  let timer: TimerId = timers.setTimeout(expire, wait < 0 ? ms : connectMs);

  try {
    let head = req.method + ' ' + req.path + ' HTTP/1.0\r\nHost: ' + req.host;
    if (req.port !== 80) head += ':' + req.port;
    head += '\r\n';
    const body = req.body;
    let ascii = true;
    if (body !== undefined) {
      const len = utf8Length(body);
      ascii = len === body.length;
      head += 'Content-Type: ' + (req.contentType ?? 'text/plain; charset=utf-8') + '\r\nContent-Length: ' + len + '\r\n';
    }
    const text = head + '\r\n' + (body || '');
    // Almost every request is ASCII (encoded readings, percent-encoded
    // paths): it goes to the port as the string it is, with no byte array,
    // and Kaluma's port hands that string to its driver, which takes
    // strings, without making one again. Anything else is encoded once, head
    // and body together.
    out = ascii && utf8Length(head) === head.length ? text : encoder.encode(text);

    // Socket callbacks run in the runtime's event loop, where a throw
    // vanishes and would leave the promise pending forever: each one catches.
    const s = o.sockets.connect(req.host, req.port, {
      onConnect() {
        if (done) return;
        try {
          connected = true;
          if (sock) send(sock);
        } catch (e) {
          oops(e);
        }
      },
      onData(bytes) {
        if (done) return;
        try {
          const len = bytes.length;
          if (n + len > max) return fail('too-large', 'response over ' + max + ' bytes');
          if (!n) {
            buf = bytes;
            borrowed = true;
          } else {
            if (borrowed || n + len > buf.length) grow(n + len);
            buf.set(bytes, n);
          }
          n += len;
          parse();
        } catch (e) {
          oops(e);
        }
      },
      onClose() {
        if (done) return;
        try {
          if (phase === UNTIL_CLOSE) return complete();
          fail(connected ? 'reset' : 'connect', connected ? 'closed mid-response' : 'closed before connect');
        } catch (e) {
          oops(e);
        }
      },
    });
    sock = s;
    // A socket whose events fired during connect() itself is handled here.
    if (done) s.destroy();
    else if (connected) send(s);
  } catch (e) {
    oops(e);
  }
}

/** The headers anyone reads (this client, the service client, the tests); every other line is skipped unread. */
const KEEP = ['content-length', 'transfer-encoding', 'content-type', 'date', 'retry-after', 'location'];

/** The KEEP name buf[a, z) starts with (case-insensitive, followed by ':'), or undefined. */
function kept(b: Uint8Array, a: number, z: number): string | undefined {
  // Indexed: for-of would make an iterator and a result object per name.
  for (let j = 0; j < KEEP.length; j++) {
    const k = KEEP[j] as string;
    if (z - a <= k.length || b[a + k.length] !== 58) continue;
    let i = 0;
    for (; i < k.length; i++) {
      const c = b[a + i] as number;
      if ((c >= 65 && c <= 90 ? c + 32 : c) !== k.charCodeAt(i)) break;
    }
    if (i === k.length) return k;
  }
  return undefined;
}

/** Bytes of s in UTF-8, as the encoder makes them: 4 for a surrogate pair, 3 for a lone surrogate. */
function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n++;
    else {
      n += 2;
      if (c >= 0xd800 && c < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    }
  }
  return n;
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  return l >= 97 && l <= 102 ? l - 87 : -1;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
