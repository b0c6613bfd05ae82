// A small HTTP client over the Socket port (Kaluma's http module half-closes,
// hangs on chunked replies and mangles headers). Requests are HTTP/1.0, so the
// server closes first: a socket we close first lets a late FIN close the next
// one on Kaluma. Nothing received becomes a string unless it is UTF-8.
// Per exchange: one object, no iterator, regular expression, copy or closure
// but the deadline's, and a reply in one segment parsed where it arrived.
import type { Socket, SocketFactory, SocketHandlers, TimerId, Timers } from '../ports/ports';
import { utf8Length } from '../service/utf8';
import { decodeUtf8, isUtf8 } from '../utf8';
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
// Pure, so bundles that take only a helper from this file leave it out.
const EMPTY: Uint8Array = /* @__PURE__ */ new Uint8Array(0);
// A regular expression literal is a new object each time it is evaluated.
const CHUNKED = /chunked/i;
// The status line's form, byte by byte ('0': a digit): no match array.
const STATUS_FORM = 'HTTP/0.0 000';

/** One exchange: a single object that is its own socket handlers (on its prototype). */
interface Exchange extends SocketHandlers {
  resolve_: (r: HttpResult) => void;
  sock_: Socket | undefined;
  connected_: boolean;
  done_: boolean;
  sent_: number;
  // Raw response bytes; the body is always buf_[bodyStart_, bodyEnd_), chunks
  // de-framed in place. The first segment is borrowed (never written to); a
  // second one, or de-framing, copies into a buffer of the exchange's own.
  buf_: Uint8Array;
  borrowed_: boolean;
  end_: number;
  at_: number;
  scan_: number;
  bodyEnd_: number;
  bodyStart_: number;
  left_: number;
  phase_: number;
  status_: number;
  reason_: string;
  headers_: Record<string, string>;
  // The request's head and body, each a string when ASCII, else UTF-8 bytes;
  // never joined, or a batch's body would sit twice on the heap.
  out_: Uint8Array | string;
  rest_: Uint8Array | string;
  // One timer: the connect deadline, then the rest of the whole one (`wait_`;
  // -1 when the whole deadline comes first).
  wait_: number;
  timer_: TimerId;
}

export function createHttpClient(
  o: { sockets: SocketFactory; timers: Timers } & HttpClientOptions,
): HttpClient {
  const sockets = o.sockets;
  const timers = o.timers;
  const max = o.maxResponseBytes ?? 8192;
  const connectMs = o.connectTimeoutMs ?? 5000;
  const ms = o.timeoutMs ?? 15000;
  const st: HttpStats = { exchanges: 0, failures: {} };

  // What `request` hands to `start` (a promise runs its executor at once): no executor per request.
  let nextRequest: HttpRequest | undefined;

  function start(resolve: (r: HttpResult) => void): void {
    const req = nextRequest as HttpRequest;
    // Not held past the call: a batch's body is large.
    nextRequest = undefined;
    const wait = connectMs <= ms ? ms - connectMs : -1;
    // The fields not named here are set before they are read.
    const fields: Partial<Exchange> = {
      resolve_: resolve, connected_: false, done_: false, sent_: 0, buf_: EMPTY, borrowed_: false, end_: 0, at_: 0, scan_: 0, phase_: STATUS, wait_: wait,
    };
    const x = Object.setPrototypeOf(fields, HANDLERS) as Exchange;
    const expire = (): void => {
      if (!x.connected_ && x.wait_ >= 0) return fail(x, 'timeout', 'connect');
      if (x.wait_ > 0) {
        x.timer_ = timers.setTimeout(expire, x.wait_);
        x.wait_ = 0;
      } else fail(x, 'timeout', 'response');
    };
    x.timer_ = timers.setTimeout(expire, wait < 0 ? ms : connectMs);

    try {
      let head = req.method + ' ' + req.path + ' HTTP/1.0\r\nHost: ' + req.host;
      if (req.port !== 80) head += ':' + req.port;
      head += '\r\n';
      const body = req.body || '';
      const len = utf8Length(body);
      if (req.body !== undefined) {
        head += 'Content-Type: ' + (req.contentType ?? 'text/plain; charset=utf-8') + '\r\nContent-Length: ' + len + '\r\n';
      }
      head += '\r\n';
      // Almost every request is ASCII: it goes to the driver as the string it
      // is, with no byte array. Anything else is encoded.
      x.out_ = utf8Length(head) === head.length ? head : encoder.encode(head);
      x.rest_ = len === body.length ? body : encoder.encode(body);

      const s = sockets.connect(req.host, req.port, x);
      x.sock_ = s;
      // A socket whose events fired during connect() itself is handled here.
      if (x.done_) s.destroy();
      else if (x.connected_) send(x, s);
    } catch (e) {
      oops(x, e);
    }
  }

  // Socket callbacks run in the runtime's event loop, where a throw vanishes
  // and would leave the promise pending forever: each one catches.
  const HANDLERS: SocketHandlers & ThisType<Exchange> = {
    onConnect() {
      if (this.done_) return;
      try {
        this.connected_ = true;
        if (this.sock_) send(this, this.sock_);
      } catch (e) {
        oops(this, e);
      }
    },
    onData(bytes) {
      if (this.done_) return;
      try {
        const len = bytes.length;
        const n = this.end_;
        if (n + len > max) return fail(this, 'too-large', 'response over ' + max + ' bytes');
        if (!n) {
          this.buf_ = bytes;
          this.borrowed_ = true;
        } else {
          if (this.borrowed_ || n + len > this.buf_.length) grow(this, n + len);
          this.buf_.set(bytes, n);
        }
        this.end_ = n + len;
        parse(this);
      } catch (e) {
        oops(this, e);
      }
    },
    onClose() {
      if (this.done_) return;
      try {
        if (this.phase_ === UNTIL_CLOSE) return complete(this);
        const up = this.connected_;
        fail(this, up ? 'reset' : 'connect', up ? 'closed mid-response' : 'closed before connect');
      } catch (e) {
        oops(this, e);
      }
    },
  };

  /** `whole`: the reply arrived in full, so the server closes (even if we refuse what it said). */
  function finish(x: Exchange, r: HttpResult, whole?: boolean): void {
    if (x.done_) return;
    x.done_ = true;
    timers.clearTimeout(x.timer_);
    x.out_ = x.rest_ = x.buf_ = EMPTY;
    const sock = x.sock_;
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
    x.resolve_(r);
  }

  function fail(x: Exchange, failure: HttpFailure, why: string): void {
    finish(x, { kind: 'failure', failure, reason: why, bytesSent: x.sent_ });
  }

  function complete(x: Exchange): void {
    const body = decodeUtf8(x.buf_.subarray(x.bodyStart_, x.bodyEnd_));
    if (body === undefined) return finish(x, { kind: 'failure', failure: 'encoding', reason: 'reply body is not UTF-8', bytesSent: x.sent_ }, true);
    finish(x, { kind: 'response', status: x.status_, reason: x.reason_, headers: x.headers_, body, bytesSent: x.sent_ }, true);
  }

  function oops(x: Exchange, e: unknown): void {
    fail(x, x.connected_ ? 'reset' : 'connect', e instanceof Error ? e.message : String(e));
  }

  // The port cuts the request into driver-sized writes; a refused write throws (guarded).
  function send(x: Exchange, s: Socket): void {
    s.write(x.out_);
    if (x.rest_.length) s.write(x.rest_);
    // Bytes either way: an ASCII string has one a character.
    x.sent_ = x.out_.length + x.rest_.length;
    x.out_ = x.rest_ = EMPTY;
  }

  /** Reads what arrived: head lines, chunk lines and body bytes, until it needs more. */
  function parse(x: Exchange): void {
    while (!x.done_) {
      const phase = x.phase_;
      if (phase >= LENGTH) {
        if (!bodyBytes(x, phase)) return;
        continue;
      }
      const buf = x.buf_;
      const a = x.at_;
      const end = x.end_;
      const e = buf.indexOf(LF, x.scan_ > a ? x.scan_ : a);
      if (e < 0 || e >= end) {
        x.scan_ = end;
        return;
      }
      // A line is buf[a, z). Only the status line and KEEP's header values
      // become strings: anything else costs no heap beyond the bounded buffer.
      const z = e > a && buf[e - 1] === CR ? e - 1 : e;
      x.at_ = e + 1;
      if (phase === STATUS) {
        let ok = z - a === 12 || (z - a > 12 && buf[a + 12] === 32);
        for (let i = 0; ok && i < 12; i++) {
          const b = buf[a + i] as number;
          const f = STATUS_FORM.charCodeAt(i);
          ok = f === 48 ? b >= 48 && b <= 57 : b === f;
        }
        // The reason: UTF-8 without CR, U+2028 or U+2029 ('.' takes no line end).
        for (let i = a + 13; ok && i < z; i++) {
          const b = buf[i] as number;
          ok = b !== CR && !(b === 0xe2 && buf[i + 1] === 0x80 && ((buf[i + 2] as number) | 1) === 0xa9);
        }
        if (!ok || !isUtf8(buf, a, z)) return fail(x, 'protocol', 'bad status line');
        x.status_ = (buf[a + 9] as number) * 100 + (buf[a + 10] as number) * 10 + (buf[a + 11] as number) - 5328;
        x.reason_ = z - a > 13 ? (decodeUtf8(buf.subarray(a + 13, z)) as string) : '';
        x.headers_ = {};
        x.phase_ = HEADER;
      } else if (phase === HEADER) {
        if (a === z) headEnd(x);
        else headerLine(x, buf, a, z);
      } else if (phase === CHUNK_SIZE) {
        let size = 0;
        let i = a;
        for (; i < z && i - a < 8; i++) {
          // A hex digit, or the end of the size.
          const b = buf[i] as number;
          const l = b | 32;
          const d = b >= 48 && b <= 57 ? b - 48 : l >= 97 && l <= 102 ? l - 87 : -1;
          if (d < 0) break;
          size = size * 16 + d;
        }
        if (i === a) return fail(x, 'protocol', 'bad chunk size');
        x.left_ = size;
        x.phase_ = size ? CHUNK_DATA : TRAILER;
      } else if (phase === CHUNK_END) {
        if (a !== z) return fail(x, 'protocol', 'bad chunk end');
        x.phase_ = CHUNK_SIZE;
      } else if (a === z) {
        // Trailers are read and ignored until the blank line.
        return complete(x);
      }
    }
  }

  /** Takes the body bytes that arrived (de-framing a chunk in place); false when it needs more. */
  function bodyBytes(x: Exchange, phase: number): boolean {
    const n = x.end_;
    const p = x.at_;
    const avail = n - p;
    const take = phase === UNTIL_CLOSE || x.left_ > avail ? avail : x.left_;
    if (x.bodyEnd_ !== p) {
      if (x.borrowed_) grow(x, n);
      x.buf_.copyWithin(x.bodyEnd_, p, p + take);
    }
    x.bodyEnd_ += take;
    x.at_ = p + take;
    x.left_ -= take;
    if (phase === UNTIL_CLOSE || x.left_ > 0) return false;
    if (phase === LENGTH) complete(x);
    else x.phase_ = CHUNK_END;
    return true;
  }

  /** The blank line that ends a head: another head after a 1xx reply, else how the body is framed. */
  function headEnd(x: Exchange): void {
    const status = x.status_;
    if (status < 200) {
      x.phase_ = STATUS;
      return;
    }
    const p = x.at_;
    x.bodyStart_ = x.bodyEnd_ = p;
    const te = x.headers_['transfer-encoding'];
    const cl = x.headers_['content-length'];
    if (status === 204 || status === 304) return complete(x);
    if (te !== undefined && CHUNKED.test(te)) {
      x.phase_ = CHUNK_SIZE;
    } else if (cl !== undefined) {
      // Digits only, as /^\d+$/ takes them (a test would make a match array).
      let digits = cl.length > 0;
      for (let i = 0; digits && i < cl.length; i++) {
        const d = cl.charCodeAt(i);
        digits = d >= 48 && d <= 57;
      }
      if (!digits) return fail(x, 'protocol', 'bad content-length');
      const left = +cl;
      x.left_ = left;
      if (p + left > max) return fail(x, 'too-large', 'content-length ' + cl);
      if (left === 0) return complete(x);
      x.phase_ = LENGTH;
    } else {
      x.phase_ = UNTIL_CLOSE;
    }
  }

  /** A header line buf[a, z): kept only when KEEP names it; a repeated one is joined with ', '. */
  function headerLine(x: Exchange, buf: Uint8Array, a: number, z: number): void {
    const k = kept(buf, a, z);
    // Lines without a name are tolerated and dropped, like obsolete folding.
    if (k === undefined) return;
    let v0 = a + k.length + 1;
    let v1 = z;
    while (v0 < v1 && (buf[v0] === 32 || buf[v0] === 9)) v0++;
    while (v1 > v0 && (buf[v1 - 1] === 32 || buf[v1 - 1] === 9)) v1--;
    const v = decodeUtf8(buf.subarray(v0, v1));
    if (v === undefined) return fail(x, 'encoding', k + ' header is not UTF-8');
    const prev = x.headers_[k];
    x.headers_[k] = typeof prev === 'string' ? prev + ', ' + v : v;
  }

  /** Copies what arrived into a buffer of the exchange's own, with room for `need` bytes. */
  function grow(x: Exchange, need: number): void {
    const buf = x.buf_;
    const grown = new Uint8Array(Math.min(max, x.borrowed_ ? need : Math.max(need, buf.length * 2)));
    grown.set(buf.subarray(0, x.end_));
    x.buf_ = grown;
    x.borrowed_ = false;
  }
  return {
    request: (req) => {
      nextRequest = req;
      return new Promise<HttpResult>(start);
    },
    stats: () => st,
  };
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
