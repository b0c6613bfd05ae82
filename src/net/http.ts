// A small HTTP client over the Socket port. Kaluma's own http module
// half-closes, hangs on chunked replies and mangles headers, so we frame the
// response ourselves. Requests are HTTP/1.0 (with Host): the server closes
// the connection after its reply, and the exchange leaves the closing to it
// (Socket.release), because a socket we close first lets the server's late
// FIN close the next one on Kaluma. We close first only at a deadline.
// Nothing the server sends becomes a string unless it is well-formed UTF-8.
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

export function createHttpClient(
  o: { sockets: SocketFactory; timers: Timers } & HttpClientOptions,
): HttpClient {
  const st: HttpStats = { exchanges: 0, failures: {} };
  return {
    request: (req) =>
      new Promise<HttpResult>((resolve) =>
        exchange(o, req, (r) => {
          st.exchanges++;
          if (r.kind === 'failure') st.failures[r.failure] = (st.failures[r.failure] || 0) + 1;
          resolve(r);
        }),
      ),
    stats: () => st,
  };
}

function exchange(
  o: { sockets: SocketFactory; timers: Timers } & HttpClientOptions,
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
  // always buf[bodyStart, w) and nothing beyond `max` is ever held.
  let buf = new Uint8Array(0);
  let n = 0;
  let p = 0;
  let scan = 0;
  let w = 0;
  let bodyStart = 0;
  let left = 0;
  let phase = STATUS;
  let status = 0;
  let reason = '';
  let headers: Record<string, string> = {};
  let out = new Uint8Array(0);

  /** `whole`: the reply arrived in full, so the server closes (even if we refuse what it said). */
  const finish = (r: HttpResult, whole?: boolean): void => {
    if (done) return;
    done = true;
    timers.clearTimeout(connectTimer);
    timers.clearTimeout(deadline);
    if (sock) {
      try {
        // A whole reply: the server closes; anything else: we close now.
        if (whole) sock.release();
        else sock.destroy();
      } catch {
        // Nothing more can be done with a socket that refuses to close.
      }
    }
    resolve(r);
  };
  const fail = (failure: HttpFailure, why: string): void =>
    finish({ kind: 'failure', failure, reason: why, bytesSent: sent });
  const complete = (): void => {
    const body = decodeUtf8(buf.subarray(bodyStart, w));
    if (body === undefined) return finish({ kind: 'failure', failure: 'encoding', reason: 'reply body is not UTF-8', bytesSent: sent }, true);
    finish({ kind: 'response', status, reason, headers, body, bytesSent: sent }, true);
  };
  // Socket callbacks run in the runtime's event loop, where a throw vanishes
  // and would leave the promise pending forever.
  const guard =
    <A extends unknown[]>(f: (...a: A) => void) =>
    (...a: A): void => {
      if (done) return;
      try {
        f(...a);
      } catch (e) {
        fail(connected ? 'reset' : 'connect', message(e));
      }
    };

  // The port cuts the request into driver-sized writes; a refused write throws (guarded).
  const send = (s: Socket): void => {
    s.write(out);
    sent = out.length;
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
    if (te !== undefined && /chunked/i.test(te)) {
      phase = CHUNK_SIZE;
    } else if (cl !== undefined) {
      if (!/^\d+$/.test(cl)) return fail('protocol', 'bad content-length');
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
      const m = line === undefined ? null : /^HTTP\/\d\.\d (\d\d\d)(?: (.*))?$/.exec(line);
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
        if (w !== p) buf.copyWithin(w, p, p + take);
        w += take;
        p += take;
        left -= take;
        if (phase === UNTIL_CLOSE || left > 0) return;
        if (phase === LENGTH) return complete();
        phase = CHUNK_END;
      }
    }
  };

  const onData = (bytes: Uint8Array): void => {
    const len = bytes.length;
    if (n + len > max) return fail('too-large', 'response over ' + max + ' bytes');
    if (n + len > buf.length) {
      const grown = new Uint8Array(Math.min(max, Math.max(n + len, buf.length * 2, 512)));
      grown.set(buf.subarray(0, n));
      buf = grown;
    }
    buf.set(bytes, n);
    n += len;
    parse();
  };

  const onClose = (): void => {
    if (phase === UNTIL_CLOSE) return complete();
    fail(connected ? 'reset' : 'connect', connected ? 'closed mid-response' : 'closed before connect');
  };

  const connectTimer: TimerId = timers.setTimeout(
    () => fail('timeout', 'connect'),
    o.connectTimeoutMs ?? 5000,
  );
  const deadline: TimerId = timers.setTimeout(() => fail('timeout', 'response'), o.timeoutMs ?? 15000);

  try {
    let head = req.method + ' ' + req.path + ' HTTP/1.0\r\nHost: ' + req.host;
    if (req.port !== 80) head += ':' + req.port;
    head += '\r\n';
    let body: Uint8Array = out;
    if (req.body !== undefined) {
      body = encoder.encode(req.body);
      head +=
        'Content-Type: ' + (req.contentType ?? 'text/plain; charset=utf-8') +
        '\r\nContent-Length: ' + body.length + '\r\n';
    }
    const h = encoder.encode(head + '\r\n');
    out = new Uint8Array(h.length + body.length);
    out.set(h);
    out.set(body, h.length);

    const s = o.sockets.connect(req.host, req.port, {
      onConnect: guard(() => {
        connected = true;
        timers.clearTimeout(connectTimer);
        if (sock) send(sock);
      }),
      onData: guard(onData),
      onClose: guard(onClose),
    });
    sock = s;
    // A socket whose events fired during connect() itself is handled here.
    if (done) s.destroy();
    else if (connected) send(s);
  } catch (e) {
    fail(connected ? 'reset' : 'connect', message(e));
  }
}

/** The headers anyone reads (this client, the service client, the tests); every other line is skipped unread. */
const KEEP = ['content-length', 'transfer-encoding', 'content-type', 'date', 'retry-after', 'location'];

/** The KEEP name buf[a, z) starts with (case-insensitive, followed by ':'), or undefined. */
function kept(b: Uint8Array, a: number, z: number): string | undefined {
  for (const k of KEEP) {
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

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  return l >= 97 && l <= 102 ? l - 87 : -1;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
