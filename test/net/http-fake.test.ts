// Cases a loopback server cannot produce: a handshake that never completes,
// port 80, events fired inside connect() itself, and a socket that throws.
import { describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/net/http';
import type { HttpRequest } from '../../src/net/types';
import type { SocketFactory, SocketHandlers } from '../../src/ports/ports';
import { realTimers } from './helpers';

interface Fake {
  factory: SocketFactory;
  /** Every byte written, as Latin-1. */
  written: string;
  /** What each write was handed. */
  writes: (Uint8Array | string)[];
  destroyed: number;
  released: number;
  handlers?: SocketHandlers;
}

function fake(script: (h: SocketHandlers, f: Fake) => void, write?: (d: Uint8Array | string) => void): Fake {
  const f: Fake = {
    written: '',
    writes: [],
    destroyed: 0,
    released: 0,
    factory: {
      connect(_host, _port, h) {
        f.handlers = h;
        script(h, f);
        return {
          write(d) {
            if (write) write(d);
            f.writes.push(d);
            if (typeof d === 'string' && /[\u0080-\uffff]/.test(d)) throw new Error('a string written must be ASCII');
            f.written += typeof d === 'string' ? d : Buffer.from(d).toString('latin1');
          },
          release() {
            f.released++;
          },
          destroy() {
            f.destroyed++;
          },
        };
      },
      abandoned: () => 0,
    },
  };
  return f;
}

const get = { method: 'GET' as const, host: 'device.example', port: 80, path: '/api/v' };
const ok = (h: SocketHandlers) => h.onData(new TextEncoder().encode('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi'));

describe('HTTP client on a scripted socket', () => {
  it('times out a handshake that never completes and destroys the socket', async () => {
    const f = fake(() => {});
    const timers = realTimers();
    const r = await createHttpClient({ sockets: f.factory, timers, connectTimeoutMs: 200 }).request(get);
    expect(r).toEqual({ kind: 'failure', failure: 'timeout', reason: 'connect', bytesSent: 0 });
    expect(f.destroyed).toBe(1);
    expect(timers.pending()).toBe(0);
  });

  it('leaves the port out of Host when it is 80', async () => {
    const f = fake(() => {});
    const http = createHttpClient({ sockets: f.factory, timers: realTimers() });
    const pending = http.request(get);
    await new Promise<void>((go) => setTimeout(go, 0));
    f.handlers!.onConnect();
    ok(f.handlers!);
    const r = await pending;
    expect(f.written).toBe('GET /api/v HTTP/1.0\r\nHost: device.example\r\n\r\n');
    expect(r).toMatchObject({ kind: 'response', status: 200, body: 'hi', bytesSent: f.written.length });
  });

  it('handles a socket that connects and answers inside connect()', async () => {
    const f = fake((h) => {
      h.onConnect();
      ok(h);
    });
    const timers = realTimers();
    const r = await createHttpClient({ sockets: f.factory, timers }).request(get);
    expect(r).toMatchObject({ kind: 'response', status: 200, body: 'hi' });
    expect(f.destroyed).toBe(1);
    expect(timers.pending()).toBe(0);
  });

  it('sends the request when the connect event fires inside connect()', async () => {
    const f = fake((h) => h.onConnect());
    const http = createHttpClient({ sockets: f.factory, timers: realTimers() });
    const pending = http.request({ ...get, method: 'POST', body: '{"a":1}', contentType: 'application/json' });
    ok(f.handlers!);
    await pending;
    expect(f.written).toBe(
      'POST /api/v HTTP/1.0\r\nHost: device.example\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}',
    );
  });

  it('resolves with a failure when the socket throws on write', async () => {
    const f = fake(
      (h) => setTimeout(() => h.onConnect(), 0),
      () => {
        throw new Error('ERR_MEM');
      },
    );
    const timers = realTimers();
    const r = await createHttpClient({ sockets: f.factory, timers }).request(get);
    expect(r).toEqual({ kind: 'failure', failure: 'reset', reason: 'ERR_MEM', bytesSent: 0 });
    expect(f.destroyed).toBe(1);
    expect(timers.pending()).toBe(0);
  });

  it('hands an ASCII request to the socket as its head and its body, the very string given, no bytes in between', async () => {
    const f = fake((h) => h.onConnect());
    const http = createHttpClient({ sockets: f.factory, timers: realTimers() });
    const body = '[' + Array.from({ length: 40 }, (_, i) => `{"seq":${i},"temp":21.5}`).join(',') + ']';
    const pending = http.request({ ...get, port: 8080, method: 'POST', body, contentType: 'application/json' });
    ok(f.handlers!);
    const r = await pending;
    const head = `POST /api/v HTTP/1.0\r\nHost: device.example:8080\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // Never joined: a joined request would hold a batch's body twice on the heap.
    expect(f.writes).toEqual([head, body]);
    expect(f.writes[1]).toBe(body);
    expect(r).toMatchObject({ kind: 'response', bytesSent: head.length + body.length });
  });

  it('hands a GET to the socket as a string too', async () => {
    const f = fake((h) => h.onConnect());
    const pending = createHttpClient({ sockets: f.factory, timers: realTimers() }).request(get);
    ok(f.handlers!);
    await pending;
    expect(f.writes).toEqual(['GET /api/v HTTP/1.0\r\nHost: device.example\r\n\r\n']);
  });

  it.each([
    ['the body', { body: '{"unit":"°C","clef":"𝄞"}' }],
    ['the path', { path: '/api/vé', body: '1' }],
    ['the content type', { body: '1', contentType: 'text/plain; x=ü' }],
    ['a lone surrogate in the body', { body: 'a\ud800b' }],
  ])('hands a request with a non-ASCII character in %s to the socket as its UTF-8 bytes, and counts bytes', async (_, part) => {
    const f = fake((h) => h.onConnect());
    const req: HttpRequest = { ...get, method: 'POST', ...part };
    const pending = createHttpClient({ sockets: f.factory, timers: realTimers() }).request(req);
    ok(f.handlers!);
    const r = await pending;
    const body = new TextEncoder().encode(req.body);
    const head = `POST ${req.path} HTTP/1.0\r\nHost: device.example\r\nContent-Type: ${req.contentType ?? 'text/plain; charset=utf-8'}\r\nContent-Length: ${body.length}\r\n\r\n`;
    const want = Buffer.concat([Buffer.from(head, 'utf8'), body]);
    expect(f.writes).toHaveLength(2);
    // Each part as a string when it is ASCII, else as its UTF-8 bytes.
    for (const w of f.writes) expect(typeof w === 'string' ? [...w].every((c) => c.charCodeAt(0) < 128) : w instanceof Uint8Array).toBe(true);
    expect(f.writes.some((w) => w instanceof Uint8Array)).toBe(true);
    const got = f.writes.map((w) => (typeof w === 'string' ? Buffer.from(w, 'latin1') : Buffer.from(w)));
    expect(Buffer.concat(got)).toEqual(want);
    expect(r).toMatchObject({ kind: 'response', bytesSent: want.length });
  });

  it('ignores events after the outcome', async () => {
    const f = fake((h) => {
      h.onConnect();
      ok(h);
    });
    const r = await createHttpClient({ sockets: f.factory, timers: realTimers() }).request(get);
    f.handlers!.onData(new TextEncoder().encode('garbage'));
    f.handlers!.onClose();
    expect(r).toMatchObject({ kind: 'response', body: 'hi' });
    expect(f.destroyed).toBe(1);
  });
});
