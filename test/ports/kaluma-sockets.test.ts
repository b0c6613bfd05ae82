// The Kaluma socket port and the HTTP client on a model of the Pico W's TCP
// driver (test/fakes/kaluma/net.ts), which the port drives directly (never
// Kaluma's net module): refused and reset connections are abandoned, never
// closed (closing would free their PCB twice); the server closes first, so no
// late FIN closes the next socket on the same slot, and a host name is looked
// up once; when the port closes first, a placeholder holds the slot until the
// late FIN or until no FIN can come; requests reach the driver in pieces the C
// stack can hold (docs/architecture.md, The ports and the runtime's defects).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHttpClient } from '../../src/net/http';
import type { HttpRequest, HttpResult } from '../../src/net/types';
import { createKalumaNet, httpPeer, type Peer, type PeerConn } from '../fakes/kaluma/net';
import { createKalumaTimers } from '../fakes/kaluma/timers';
import type { Socket } from '../../src/ports/ports';
import { kalumaEnv, type KalumaEnv } from './kaluma-env';

afterEach(() => vi.unstubAllGlobals());

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nValue updated';
const get = (host = '10.0.0.5'): HttpRequest => ({ method: 'GET', host, port: 8080, path: '/api/updatedevicevalue/k/1/2/21.5' });

async function run(k: KalumaEnv, req: HttpRequest, o: { timeoutMs?: number } = {}): Promise<HttpResult> {
  const http = createHttpClient({ sockets: k.sockets.kalumaSockets, timers: k.time.kalumaTimers, connectTimeoutMs: 5000, timeoutMs: o.timeoutMs ?? 15000 });
  let r: HttpResult | undefined;
  void http.request(req).then((x) => (r = x));
  for (let i = 0; i < 400 && !r; i++) await k.timers.advance(50, () => Promise.resolve());
  if (!r) throw new Error('the exchange never settled');
  return r;
}

const settle = (k: KalumaEnv): Promise<void> => k.timers.advance(10000, () => Promise.resolve());

describe('Kaluma socket port on the Pico W driver model', () => {
  it('abandons a refused connection instead of closing it, and counts it', async () => {
    const k = await kalumaEnv({ peer: { connect: (c) => c.refuse() } });
    const r = await run(k, get());
    expect(r).toMatchObject({ kind: 'failure', failure: 'timeout', reason: 'connect' });
    await settle(k);
    expect(k.net.violations).toEqual([]);
    expect(k.sockets.kalumaSockets.abandoned()).toBe(1);
  });

  it('abandons a connection reset mid-reply', async () => {
    const peer: Peer = {
      connect: (c) => c.accept(),
      data: (c) => {
        c.send('HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nVal');
        c.reset();
      },
    };
    const k = await kalumaEnv({ peer });
    const r = await run(k, get(), { timeoutMs: 3000 });
    expect(r).toMatchObject({ kind: 'failure', failure: 'timeout', reason: 'response' });
    await settle(k);
    expect([k.net.violations, k.sockets.kalumaSockets.abandoned()]).toEqual([[], 1]);
  });

  it('finds a connection reset after its reply at the next connect, before lwIP can hand its PCB out again', async () => {
    let n = 0;
    const peer: Peer = {
      connect: (c) => c.accept(),
      data: (c) => {
        c.send(OK);
        if (n++ === 0) c.reset();
        else c.fin();
      },
    };
    const k = await kalumaEnv({ peer });
    expect(await run(k, get())).toMatchObject({ kind: 'response', status: 200 });
    for (let i = 0; i < 6; i++) expect(await run(k, get())).toMatchObject({ kind: 'response', status: 200 });
    await settle(k);
    expect(k.net.violations).toEqual([]);
    expect(k.sockets.kalumaSockets.abandoned()).toBe(1);
    expect(k.net.pcbsFree()).toBe(5);
  });

  it('leaves the closing to the server, so its FIN never closes the next request\'s socket', async () => {
    // The FIN comes 40 ms after the reply; the next request starts at once (a backlog drains).
    const peer: Peer = {
      connect: (c) => c.accept(),
      data: (c) => {
        c.send(OK);
        setFinLater(c);
      },
    };
    const late: PeerConn[] = [];
    const setFinLater = (c: PeerConn): void => void late.push(c);
    const k = await kalumaEnv({ peer });
    for (let i = 0; i < 5; i++) {
      const r = run(k, get());
      const got = await r;
      expect(got).toMatchObject({ kind: 'response', status: 200 });
      for (const c of late.splice(0)) k.timers.after(40, () => c.fin());
    }
    await settle(k);
    expect(k.net.violations).toEqual([]);
    expect([k.net.slotsInUse(), k.net.pcbsFree(), k.sockets.kalumaSockets.abandoned()]).toEqual([0, 5, 0]);
  });

  it('closes a finished connection itself when the server never sends its FIN, and holds the slot with a placeholder until no FIN can come', async () => {
    let closedByClient = 0;
    const k = await kalumaEnv({ peer: { ...httpPeer(() => OK, { fin: false }), closed: () => void closedByClient++ } });
    expect(await run(k, get())).toMatchObject({ kind: 'response' });
    expect(k.net.slotsInUse()).toBe(1);
    await k.timers.advance(k.sockets.LINGER_MS + 100, () => Promise.resolve());
    // Closed: the slot is the placeholder's now.
    expect([k.net.slotsInUse(), k.sockets.placeholders(), closedByClient, k.net.violations]).toEqual([1, 1, 1, []]);
    await k.timers.advance(k.sockets.QUARANTINE_MS, () => Promise.resolve());
    expect([k.net.slotsInUse(), k.sockets.placeholders(), k.net.violations]).toEqual([0, 0, []]);
  });

  it('hands a 6 KB request to the driver in writes the C stack can hold, and the server gets every byte', async () => {
    const peer = httpPeer(() => OK);
    const k = await kalumaEnv({ peer });
    const body = JSON.stringify(Array.from({ length: 120 }, (_, i) => ({ seq: i, temp: 21.5, note: 'réglé à 20 °C' })));
    const r = await run(k, { method: 'POST', host: '10.0.0.5', port: 8080, path: '/api/updatedevicejson/k/1/2', body, contentType: 'application/json' });
    expect(r).toMatchObject({ kind: 'response', status: 200 });
    const sent = Buffer.from(peer.requests[0]!, 'latin1');
    expect(sent.subarray(sent.length - Buffer.byteLength(body)).toString('utf8')).toBe(body);
    expect(sent.length).toBeGreaterThan(6000);
    expect(k.net.driverWrites.length).toBeGreaterThan(5);
    expect(Math.max(...k.net.driverWrites)).toBeLessThanOrEqual(k.sockets.PIECE + 1);
    expect(k.net.violations).toEqual([]);
  });

  it('looks a host name up once, connects by address after, and looks it up again when that address stops answering', async () => {
    let refuse = false;
    const inner = httpPeer(() => OK);
    const k = await kalumaEnv({ peer: { ...inner, connect: (c) => (refuse ? c.refuse() : c.accept()) } });
    k.net.dns['svc.example'] = '10.0.0.5';
    for (let i = 0; i < 10; i++) expect(await run(k, get('svc.example'))).toMatchObject({ kind: 'response' });
    expect(k.net.dnsLookups).toBe(1);
    refuse = true;
    expect(await run(k, get('svc.example'))).toMatchObject({ kind: 'failure' });
    refuse = false;
    k.net.dns['svc.example'] = '10.0.0.6';
    expect(await run(k, get('svc.example'))).toMatchObject({ kind: 'response' });
    expect(k.net.dnsLookups).toBe(2);
    await settle(k);
    expect(k.net.violations).toEqual([]);
  });

  it('runs 100 exchanges beside a running sampler on the one Kaluma timer id the sampler already took', async () => {
    const k = await kalumaEnv({ peer: httpPeer(() => OK) });
    const t = k.time.kalumaTimers;
    const sample = (): void => void t.setTimeout(sample, 1000);
    sample();
    for (let i = 0; i < 100; i++) expect(await run(k, get())).toMatchObject({ kind: 'response' });
    expect(k.timers.idsTaken()).toBe(1);
    expect(k.timers.violations).toEqual([]);
  });
});

/** A server whose reply is not HTTP (the client fails and closes first) and whose FIN comes `finMs` later; the later connections it never answers. */
function lateFinPeer(finMs: number): Peer & { conns: PeerConn[]; later: (ms: number, cb: () => void) => void } {
  const conns: PeerConn[] = [];
  const peer = {
    conns,
    /** The driver model's clock, set once the environment is made. */
    later: (_ms: number, _cb: () => void): void => undefined,
    connect: (c: PeerConn) => {
      conns.push(c);
      c.accept();
    },
    data: (c: PeerConn) => {
      if (c !== conns[0]) return;
      c.send('\x00\x01SSH-2.0 nothing like HTTP\r\n\r\n');
      peer.later(finMs, () => c.fin());
    },
  };
  return peer;
}

/** Starts an exchange and lets `ms` pass; the result, if it settled. */
async function start(k: KalumaEnv, req: HttpRequest, ms: number, o: { timeoutMs?: number } = {}): Promise<{ r?: HttpResult }> {
  const http = createHttpClient({ sockets: k.sockets.kalumaSockets, timers: k.time.kalumaTimers, connectTimeoutMs: 5000, timeoutMs: o.timeoutMs ?? 15000 });
  const out: { r?: HttpResult } = {};
  void http.request(req).then((x) => (out.r = x));
  await k.timers.advance(ms, () => Promise.resolve());
  return out;
}

describe('Kaluma socket port: a slot we closed first is held by a placeholder', () => {
  it('a late FIN after the port closed first closes the placeholder, not the next connection on the same slot', async () => {
    const peer = lateFinPeer(200);
    const k = await kalumaEnv({ peer });
    peer.later = (ms, cb) => k.timers.after(ms, cb);
    // Not HTTP: the client fails and closes first; the server's FIN is on its way.
    const first = await start(k, get(), 50);
    expect(first.r).toMatchObject({ kind: 'failure', failure: 'protocol' });
    const heldThen = k.sockets.placeholders();
    // The next request starts at once and waits for its reply while the FIN arrives.
    const second = await start(k, get(), 400, { timeoutMs: 3000 });
    expect(k.net.violations).toEqual([]);
    expect(second.r).toBeUndefined();
    expect([heldThen, k.net.placeholderFins]).toEqual([1, 1]);
    // The FIN ended the quarantine: only the second connection holds a slot.
    expect([k.sockets.placeholders(), k.net.slotsInUse()]).toEqual([0, 1]);
    await k.timers.advance(3000, () => Promise.resolve());
    expect(second.r).toMatchObject({ kind: 'failure', failure: 'timeout', reason: 'response' });
    await k.timers.advance(k.sockets.QUARANTINE_MS, () => Promise.resolve());
    expect([k.net.violations, k.net.slotsInUse(), k.sockets.placeholders()]).toEqual([[], 0, 0]);
  });

  it('gives the placeholder up after QUARANTINE_MS when no FIN comes', async () => {
    const k = await kalumaEnv({ peer: { connect: (c) => c.accept() } });
    expect(await run(k, get(), { timeoutMs: 1000 })).toMatchObject({ kind: 'failure', failure: 'timeout', reason: 'response' });
    expect([k.net.slotsInUse(), k.sockets.placeholders()]).toEqual([1, 1]);
    await k.timers.advance(k.sockets.QUARANTINE_MS - 200, () => Promise.resolve());
    expect([k.net.slotsInUse(), k.sockets.placeholders()]).toEqual([1, 1]);
    await k.timers.advance(300, () => Promise.resolve());
    expect([k.net.slotsInUse(), k.sockets.placeholders(), k.net.violations]).toEqual([0, 0, []]);
    // The driver stopped waiting too: lwIP's FIN_WAIT_2 timeout is shorter.
    expect(k.net.pcbsFree()).toBe(5);
  });

  it('holds at most PLACEHOLDERS slots: a new one gives the oldest up', async () => {
    const k = await kalumaEnv({ peer: { connect: (c) => c.accept() } });
    for (let i = 0; i <= k.sockets.PLACEHOLDERS; i++) expect(await run(k, get(), { timeoutMs: 1000 })).toMatchObject({ kind: 'failure', failure: 'timeout' });
    const netdev = k.net.netdev as unknown as { get(fd: number): unknown };
    // Slots 0 to 3 were closed first in turn; the placeholder of slot 0, the oldest, is gone.
    expect(k.sockets.placeholders()).toBe(k.sockets.PLACEHOLDERS);
    expect([0, 1, 2, 3].map((fd) => netdev.get(fd) !== undefined)).toEqual([false, true, true, true]);
    expect(k.net.violations).toEqual([]);
  });

  it('takes no placeholder when socket() throws (Wi-Fi down), and nothing throws', async () => {
    const k = await kalumaEnv({ peer: { connect: (c) => c.accept() } });
    const pending = start(k, get(), 500, { timeoutMs: 1000 });
    await pending;
    // The link goes before the deadline: the close comes with Wi-Fi down.
    k.net.link.up = false;
    await k.timers.advance(1000, () => Promise.resolve());
    expect((await pending).r).toMatchObject({ kind: 'failure', failure: 'timeout', reason: 'response' });
    expect([k.net.slotsInUse(), k.sockets.placeholders(), k.net.violations]).toEqual([0, 0, []]);
  });

  it('gives a placeholder\'s slot to a connection that finds none free', async () => {
    const k = await kalumaEnv({ peer: { connect: (c) => c.accept() } });
    // 13 slots taken for good (abandoned connections lwIP dropped stand in for them here).
    const netdev = k.net.netdev as unknown as { socket(d: string, t: string): number };
    for (let i = 0; i < 13; i++) netdev.socket('AF_INET', 'STREAM');
    for (let i = 0; i < 3; i++) expect(await run(k, get(), { timeoutMs: 1000 })).toMatchObject({ kind: 'failure', failure: 'timeout' });
    expect([k.net.slotsInUse(), k.sockets.placeholders()]).toEqual([16, 3]);
    const r = await start(k, get(), 100, { timeoutMs: 1000 });
    expect(r.r).toBeUndefined();
    expect([k.net.slotsInUse(), k.sockets.placeholders(), k.net.violations]).toEqual([16, 2, []]);
  });

  it('after a radio reset, closes nothing it no longer holds: the next connection on the same slot is left alone', async () => {
    let n = 0;
    let later = (_ms: number, _cb: () => void): void => undefined;
    // The first request is never answered; the second is, 1.5 s after it came.
    const peer: Peer = {
      connect: (c) => c.accept(),
      data: (c) => {
        if (n++ === 0) return;
        later(1500, () => {
          c.send(OK);
          c.fin();
        });
      },
    };
    const k = await kalumaEnv({ peer });
    later = (ms, cb) => k.timers.after(ms, cb);
    const first = await start(k, get(), 100, { timeoutMs: 1000 });
    // The radio is reset under the first connection: the driver drops its slot without a word.
    k.net.radioReset();
    // The next request takes slot 0 again and is still waiting when the first one's deadline comes.
    const second = await start(k, get(), 2000);
    expect(first.r).toMatchObject({ kind: 'failure', failure: 'timeout', reason: 'response' });
    expect(second.r).toMatchObject({ kind: 'response', status: 200 });
    expect(k.net.violations).toEqual([]);
  });

  it('never requires Kaluma\'s net module (nor events or stream)', async () => {
    const k = await kalumaEnv({ peer: httpPeer(() => OK) });
    for (let i = 0; i < 3; i++) expect(await run(k, get())).toMatchObject({ kind: 'response' });
    expect(k.required).toEqual([]);
  });
});

describe('Kaluma socket port: what a write hands the driver', () => {
  /** A peer that accepts and keeps its side of every connection. */
  function keeping(): Peer & { conns: PeerConn[] } {
    const conns: PeerConn[] = [];
    return { conns, connect: (c) => (conns.push(c), c.accept()) };
  }

  /** Records every non-empty string the port writes to the driver (the empty ones are its probes). */
  function driverStrings(k: KalumaEnv): string[] {
    const seen: string[] = [];
    const nd = k.net.netdev as unknown as { write(fd: number, data: string): void };
    const real = nd.write.bind(nd);
    nd.write = (fd, data) => {
      if (data.length) seen.push(data);
      real(fd, data);
    };
    return seen;
  }

  async function connected(k: KalumaEnv): Promise<Socket> {
    let up = false;
    const s = k.sockets.kalumaSockets.connect('10.0.0.5', 8080, { onConnect: () => (up = true), onData: () => undefined, onClose: () => undefined });
    for (let i = 0; i < 20 && !up; i++) await k.timers.advance(1, () => Promise.resolve());
    expect(up).toBe(true);
    return s;
  }

  const received = (c: PeerConn): string => Buffer.concat(c.received).toString('latin1');

  /** Calls of the string methods that would copy a request, made while `f` runs. */
  function copies(f: () => void): number {
    const spies = [vi.spyOn(String.prototype, 'substring'), vi.spyOn(String.prototype, 'slice'), vi.spyOn(String, 'fromCharCode')];
    try {
      f();
      return spies.reduce((n, s) => n + s.mock.calls.length, 0);
    } finally {
      for (const s of spies) s.mockRestore();
    }
  }

  it('writes an ASCII request that fits one piece as one driver write of that very string, copying nothing', async () => {
    const peer = keeping();
    const k = await kalumaEnv({ peer });
    const seen = driverStrings(k);
    const sock = await connected(k);
    const req = 'GET /api/updatedevicevalue/k/1/2/21.50 HTTP/1.0\r\nHost: 10.0.0.5:8080\r\n\r\n';
    expect(copies(() => sock.write(req))).toBe(0);
    expect(seen).toEqual([req]);
    await k.timers.advance(10, () => Promise.resolve());
    expect(received(peer.conns[0]!)).toBe(req);
    expect(k.net.violations).toEqual([]);
  });

  it('writes an ASCII request of exactly PIECE characters in one driver write', async () => {
    const k = await kalumaEnv({ peer: keeping() });
    const seen = driverStrings(k);
    const sock = await connected(k);
    const req = 'x'.repeat(k.sockets.PIECE);
    expect(copies(() => sock.write(req))).toBe(0);
    expect(seen).toEqual([req]);
  });

  it('cuts a long ASCII request into pieces of at most PIECE characters that add up to the request', async () => {
    const peer = keeping();
    const k = await kalumaEnv({ peer });
    const seen = driverStrings(k);
    const sock = await connected(k);
    const records = Array.from({ length: 30 }, (_, i) => `{"seq":${1000 + i},"uptime_ms":${60000 * i},"temp":21.5,"soil":43.75,"door":1,"unit_temp":"C"}`);
    const body = '[' + records.join(',') + ']';
    const req = 'POST /api/updatedevicejson/k/4/4444 HTTP/1.0\r\nHost: 10.0.0.5:8080\r\nContent-Type: application/json\r\nContent-Length: ' + body.length + '\r\n\r\n' + body;
    expect(req.length).toBeGreaterThan(2 * k.sockets.PIECE);
    sock.write(req);
    expect(seen.map((s) => s.length)).toEqual([k.sockets.PIECE, k.sockets.PIECE, req.length - 2 * k.sockets.PIECE]);
    expect(seen.join('')).toBe(req);
    expect(k.net.driverWrites).toEqual(seen.map((s) => s.length));
    await k.timers.advance(10, () => Promise.resolve());
    expect(received(peer.conns[0]!)).toBe(req);
    expect(k.net.violations).toEqual([]);
  });

  it('still throws on a string write the driver refuses, and on a closed socket', async () => {
    const peer = keeping();
    const k = await kalumaEnv({ peer });
    const sock = await connected(k);
    // lwIP dropped the connection: the driver's write fails.
    peer.conns[0]!.reset();
    await k.timers.advance(10, () => Promise.resolve());
    expect(() => sock.write('GET / HTTP/1.0\r\n\r\n')).toThrow('the driver refused the write');
    sock.destroy();
    expect(() => sock.write('GET / HTTP/1.0\r\n\r\n')).toThrow('socket closed');
  });

  it('the HTTP client sends an ASCII batch as its head and the body string itself, in pieces, and gets its reply', async () => {
    const peer = httpPeer(() => OK);
    const k = await kalumaEnv({ peer });
    const seen = driverStrings(k);
    const body = JSON.stringify(Array.from({ length: 25 }, (_, i) => ({ seq: i, uptime_ms: 60000 * i, temp: 21.5, unit_temp: 'C' })));
    const r = await run(k, { method: 'POST', host: '10.0.0.5', port: 8080, path: '/api/updatedevicejson/k/1/2', body, contentType: 'application/json' });
    const head = 'POST /api/updatedevicejson/k/1/2 HTTP/1.0\r\nHost: 10.0.0.5:8080\r\nContent-Type: application/json\r\nContent-Length: ' + body.length + '\r\n\r\n';
    const req = head + body;
    expect(r).toMatchObject({ kind: 'response', status: 200, bytesSent: req.length });
    expect(peer.requests).toEqual([req]);
    expect(seen.join('')).toBe(req);
    // The head in one driver write, then the body in pieces.
    expect(seen[0]).toBe(head);
    expect(seen.length).toBe(1 + Math.ceil(body.length / k.sockets.PIECE));
    expect(k.net.violations).toEqual([]);
  });

  it('the HTTP client still sends a request with non-ASCII characters as its UTF-8 bytes', async () => {
    const peer = httpPeer(() => OK);
    const k = await kalumaEnv({ peer });
    // Two, three and four bytes in UTF-8; a lone surrogate becomes U+FFFD as the encoder makes it.
    const body = '{"unit":"°C","note":"réglé € 𝄞 \ud800"}';
    const r = await run(k, { method: 'POST', host: '10.0.0.5', port: 8080, path: '/api/updatedevicejson/k/1/2', body, contentType: 'application/json' });
    const bytes = Buffer.from(new TextEncoder().encode(body));
    const head = 'POST /api/updatedevicejson/k/1/2 HTTP/1.0\r\nHost: 10.0.0.5:8080\r\nContent-Type: application/json\r\nContent-Length: ' + bytes.length + '\r\n\r\n';
    expect(r).toMatchObject({ kind: 'response', status: 200, bytesSent: head.length + bytes.length });
    expect(Buffer.from(peer.requests[0]!, 'latin1')).toEqual(Buffer.concat([Buffer.from(head, 'latin1'), bytes]));
    expect(k.net.violations).toEqual([]);
  });
});

describe('the driver model itself', () => {
  // The engine bench's stand-in service reads each driver write as the
  // string the program wrote (no copy on the device's heap), and answers.
  it('hands a text-reading peer each driver write as its own string, with or without keeping the bytes', async () => {
    for (const keep of [false, true]) {
      const timers = createKalumaTimers();
      const got: string[] = [];
      const peer: Peer = {
        connect: (c) => c.accept(),
        text(c, s) {
          got.push(s);
          if (got.join('').endsWith('\r\n\r\n')) {
            c.send(OK);
            c.fin();
          }
        },
      };
      const net = createKalumaNet({ timers, peer, keepReceived: keep });
      const d = net.netdev as unknown as { socket(a: string, b: string): number; get(fd: number): Record<string, unknown>; connect(fd: number, h: string, p: number): void; write(fd: number, s: string): void };
      const fd = d.socket('AF_INET', 'STREAM');
      const read: string[] = [];
      const o = d.get(fd);
      o['read_cb'] = (b: Uint8Array) => read.push(String.fromCharCode(...b));
      o['connect_cb'] = () => {
        d.write(fd, 'GET / HTTP/1.0\r\n');
        d.write(fd, 'Host: x\r\n\r\n');
      };
      d.connect(fd, '10.0.0.5', 8080);
      await timers.advance(100, () => Promise.resolve());
      expect(got).toEqual(['GET / HTTP/1.0\r\n', 'Host: x\r\n\r\n']);
      expect(read.join('')).toBe(OK);
      expect(net.violations).toEqual([]);
    }
  });
});
