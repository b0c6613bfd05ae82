// The Pico W's TCP driver (module_pico_cyw43.c) and Kaluma's net.Socket over
// it, modelled from their source with the defects a program can walk into
// (../shared/kaluma-repros rows 2, 3 and 8), for code that runs against
// Kaluma itself. What would hurt the board goes into `violations`:
// - closing a connection that lwIP already dropped (refused, reset): its PCB
//   is freed twice and lwIP panics;
// - a FIN that arrives after we closed first closes whichever socket now
//   holds the same slot (the lowest free slot is handed out again at once);
// - one driver write whose copy on the C stack is over 2 KB (a byte >= 0x80
//   counts twice), or over 11,680 B (dropped);
// - a host name looked up inside connect() (a DNS wait during which a late
//   FIN can orphan a PCB) is counted in dnsLookups.
// The other side of every connection is a Peer the test scripts.
import type { KalumaTimers } from './timers';

export const SLOTS = 16;
export const PCBS = 5;
const CLOSED = 0;
const CONNECTED = 1;

interface Pcb {
  n: number;
  freed: boolean;
  /** Slot whose fd field lwIP's callbacks read (tcp_arg), or -1. */
  slot: number;
  /** We sent our FIN: the peer's FIN still to come goes to tcp_arg's slot. */
  weClosed: boolean;
  peerClosed: boolean;
  /** Allocation order. */
  since: number;
}

interface Slot {
  fd: number;
  state: number;
  pcb: Pcb | undefined;
  obj: Record<string, unknown> | undefined;
  conn: PeerConn | undefined;
}

/** The service's side of one connection. */
export interface PeerConn {
  host: string;
  port: number;
  /** Bytes the client sent, as the peer received them. */
  received: Uint8Array[];
  /** Completes the handshake. */
  accept(): void;
  /** Answers the SYN with RST: lwIP frees the PCB, the driver is not told. */
  refuse(): void;
  send(bytes: Uint8Array | string): void;
  /** The peer's FIN. */
  fin(): void;
  /** RST mid-connection: lwIP frees the PCB, the driver is not told. */
  reset(): void;
}

export interface Peer {
  /** A SYN arrived (the handshake is the peer's to accept or refuse). */
  connect(c: PeerConn): void;
  /** Bytes arrived on c. */
  data?(c: PeerConn, bytes: Uint8Array): void;
  /** The client closed its side. */
  closed?(c: PeerConn): void;
}

export interface KalumaNet {
  /** global.__netdev */
  netdev: Record<string, unknown> & { errno: number };
  /** require('net') */
  module: { Socket: new () => unknown };
  violations: string[];
  /** Every driver write, in the driver's copy size. */
  driverWrites: number[];
  dnsLookups: number;
  /** Slots in use (taken and not closed). */
  slotsInUse(): number;
  /**
   * Frees the slots of connections lwIP dropped (what a board restart does),
   * for long runs of the port alone; returns how many.
   */
  releaseAbandoned(): number;
  pcbsFree(): number;
  /** Decides whether socket() throws 'WiFi is not connected.' */
  link: { up: boolean };
  dns: Record<string, string>;
}

const cesuSize = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) n += s.charCodeAt(i) < 128 ? 1 : 2;
  return n;
};
// A plain loop: on the engine, Uint8Array.from(string, fn) builds a list of one-character strings first.
const latin1 = (s: string): Uint8Array => {
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i) & 255;
  return b;
};

export function createKalumaNet(o: { timers: KalumaTimers; peer: Peer; latencyMs?: number }): KalumaNet {
  const lat = o.latencyMs ?? 1;
  const t = o.timers;
  const slots: Slot[] = Array.from({ length: SLOTS }, () => ({ fd: -1, state: CLOSED, pcb: undefined, obj: undefined, conn: undefined }));
  const pool: Pcb[] = Array.from({ length: PCBS }, (_, n) => ({ n, freed: true, slot: -1, weClosed: false, peerClosed: false, since: 0 }));
  let allocs = 0;
  const net: KalumaNet = {
    netdev: undefined as unknown as KalumaNet['netdev'],
    module: undefined as unknown as KalumaNet['module'],
    violations: [],
    driverWrites: [],
    dnsLookups: 0,
    slotsInUse: () => slots.filter((s, i) => s.fd === i).length,
    releaseAbandoned() {
      let n = 0;
      slots.forEach((s, i) => {
        if (s.fd === i && s.pcb && (s.pcb.freed || s.pcb.slot !== i)) {
          Object.assign(s, { fd: -1, state: CLOSED, pcb: undefined, obj: undefined, conn: undefined });
          n++;
        }
      });
      return n;
    },
    pcbsFree: () => pool.filter((p) => p.freed).length,
    link: { up: true },
    dns: {},
  };
  const call = (obj: Record<string, unknown> | undefined, name: string, ...args: unknown[]): void => {
    const f = obj && obj[name];
    if (typeof f === 'function') (f as (...a: unknown[]) => void)(...args);
  };
  const free = (p: Pcb, why: string): void => {
    if (p.freed) net.violations.push(why + ': PCB ' + p.n + ' freed twice (lwIP panics)');
    p.freed = true;
    p.slot = -1;
  };

  /** __net_socket_close: the slot is released and its close_cb runs. */
  function socketClose(fd: number, byPeer: boolean): void {
    const s = slots[fd]!;
    s.state = CLOSED;
    s.fd = -1;
    const p = s.pcb;
    s.pcb = undefined;
    if (p) {
      if (p.freed) net.violations.push('closed slot ' + fd + ' whose connection lwIP had already dropped: PCB ' + p.n + ' freed twice (lwIP panics)');
      else if (p.slot !== fd) net.violations.push('closed slot ' + fd + ' whose PCB lwIP had given to the connection on slot ' + p.slot);
      else if (!byPeer) {
        p.weClosed = true;
        // A peer that never sends its FIN: lwIP gives up on FIN_WAIT_2 after 20 s.
        t.after(20000, () => {
          if (!p.freed && p.weClosed && !p.peerClosed && p.slot === fd) {
            p.freed = true;
            p.slot = -1;
          }
        });
        if (s.conn) {
          const c = s.conn;
          t.after(lat, () => o.peer.closed?.(c));
        }
        if (p.peerClosed) free(p, 'close');
      } else free(p, 'close');
    }
    s.conn = undefined;
    const obj = s.obj;
    s.obj = undefined;
    call(obj, 'close_cb');
  }

  const netdev = {
    errno: 0,
    socket(domain: string, proto: string): number {
      if (domain !== 'AF_INET' || proto !== 'STREAM') throw new TypeError('un-supported domain or protocol.');
      if (!net.link.up) throw new Error('WiFi is not connected.');
      const fd = slots.findIndex((s, i) => s.fd !== i);
      if (fd < 0) throw new Error('EREMOTEIO');
      const s = slots[fd]!;
      s.fd = fd;
      s.state = CLOSED;
      s.obj = { fd, state: CLOSED, raddr: '0.0.0.0' };
      return fd;
    },
    get(fd: number): unknown {
      const s = slots[fd];
      return s && s.fd === fd ? s.obj : undefined;
    },
    connect(fd: number, host: string, port: number, cb?: (err: number) => void): void {
      const s = slots[fd];
      if (!s || s.state !== CLOSED || s.fd !== fd) {
        netdev.errno = -1;
      } else {
        let ip = host;
        if (!/^\d+\.\d+\.\d+\.\d+$/.test(host)) {
          net.dnsLookups++;
          const found = net.dns[host];
          if (!found) {
            netdev.errno = -1;
            throw new Error('DNS Error: IP is not found.');
          }
          ip = found;
        }
        s.obj!['raddr'] = ip;
        // With the pool empty, lwIP's tcp_alloc kills the oldest connection we already closed.
        let p = pool.find((x) => x.freed);
        if (!p) {
          const closing = pool.filter((x) => x.weClosed).sort((a, b) => a.since - b.since)[0];
          if (closing) {
            closing.freed = true;
            closing.slot = -1;
            p = closing;
          }
        }
        if (!p) netdev.errno = -1;
        else {
          Object.assign(p, { freed: false, slot: fd, weClosed: false, peerClosed: false, since: ++allocs });
          s.pcb = p;
          const mine = p.since;
          // Events of a connection whose PCB lwIP has since given to another one go nowhere.
          const gone = (): boolean => p.freed || p.since !== mine;
          s.state = CONNECTED;
          s.obj!['state'] = CONNECTED;
          netdev.errno = 0;
          const conn: PeerConn = {
            host: ip,
            port,
            received: [],
            accept: () =>
              t.after(lat, () => {
                if (gone() || p.weClosed) return;
                const at = p.slot;
                if (at >= 0) call(slots[at]!.obj, 'connect_cb');
              }),
            refuse: () => t.after(lat, () => !gone() && !p.weClosed && free(p, 'refused')),
            send: (b) =>
              t.after(lat, () => {
                if (gone() || p.weClosed || p.peerClosed) return;
                const at = p.slot;
                // On the board received bytes sit in C memory behind the array: no copy here either.
                const bytes = typeof b === 'string' ? latin1(b) : b;
                if (at >= 0) call(slots[at]!.obj, 'read_cb', bytes);
              }),
            fin: () =>
              t.after(lat, () => {
                if (gone() || p.peerClosed) return;
                p.peerClosed = true;
                const at = p.slot;
                if (p.weClosed) {
                  // tcp_arg still points at the slot's fd field: whoever holds that fd now is closed.
                  const s2 = slots[at];
                  if (s2 && s2.fd === at && s2.pcb !== p) {
                    net.violations.push('a late FIN closed the next socket on slot ' + at);
                    socketClose(at, true);
                  }
                  free(p, 'fin');
                } else if (at >= 0 && slots[at]!.pcb === p) socketClose(at, true);
              }),
            reset: () => t.after(lat, () => !gone() && free(p, 'reset')),
          };
          s.conn = conn;
          t.after(lat, () => o.peer.connect(conn));
        }
      }
      if (cb) cb(netdev.errno);
    },
    write(fd: number, data: unknown, cb?: (err: number) => void): void {
      if (typeof data !== 'string') throw new TypeError('data must be a string');
      const s = slots[fd];
      if (!s || s.fd !== fd || s.state < CONNECTED || !s.pcb) netdev.errno = -1;
      else if (s.pcb.freed) netdev.errno = -1; // tcp_write on a freed PCB: its state is CLOSED, ERR_CONN
      else if (s.pcb.slot !== fd) {
        // A PCB lwIP freed and handed to another connection looks alive.
        net.violations.push('wrote on slot ' + fd + ' into the PCB of the connection on slot ' + s.pcb.slot);
        netdev.errno = 0;
      } else {
        const size = cesuSize(data);
        if (data.length) net.driverWrites.push(size);
        if (size > 2048) net.violations.push('one driver write copies ' + size + ' B onto the 2 KB C stack');
        if (data.length > 11680) netdev.errno = -1;
        else {
          netdev.errno = 0;
          const c = s.conn;
          if (c && data.length) {
            const bytes = latin1(data);
            t.after(lat, () => {
              c.received.push(bytes);
              o.peer.data?.(c, bytes);
            });
          }
        }
      }
      if (cb) cb(netdev.errno);
    },
    close(fd: number, cb?: (err: number) => void): void {
      const s = slots[fd];
      if (s && fd >= 0 && (s.state !== CLOSED || s.obj)) socketClose(fd, false);
      netdev.errno = s ? 0 : -1;
      if (cb) cb(netdev.errno);
    },
    shutdown(): void {
      net.violations.push('shutdown(): the half-close makes servers drop the request');
    },
  };
  net.netdev = netdev;

  // net.Socket as Kaluma 1.2.1's net.js and stream.js behave (written from reading them).
  class Socket {
    _fd = -1;
    destroyed = false;
    remoteAddress: string | null = null;
    private handlers: Record<string, ((a?: unknown) => void)[]> = {};
    private wbuf = '';
    on(ev: string, f: (a?: unknown) => void): this {
      (this.handlers[ev] = this.handlers[ev] || []).push(f);
      return this;
    }
    emit(ev: string, a?: unknown): boolean {
      const hs = this.handlers[ev];
      if (!hs || !hs.length) {
        if (ev === 'error') throw a instanceof Error ? a : new Error("Uncaught 'error' event");
        return false;
      }
      for (const h of hs.slice()) h(a);
      return true;
    }
    private afterDestroy(): void {
      if (this.destroyed) return;
      this.destroyed = true;
      this.emit('close');
    }
    connect(opts: { host: string; port: number }, listener?: () => void): this {
      const fd = netdev.socket('AF_INET', 'STREAM');
      if (listener) this.on('connect', listener);
      this._fd = fd;
      const obj = netdev.get(fd) as Record<string, unknown>;
      obj['connect_cb'] = () => {
        this.remoteAddress = obj['raddr'] as string;
        this.emit('connect');
      };
      obj['close_cb'] = () => this.afterDestroy();
      obj['read_cb'] = (d: Uint8Array) => this.emit('data', d);
      obj['shutdown_cb'] = () => undefined;
      netdev.connect(fd, opts.host, opts.port, (err) => {
        if (err) this.emit('error', new Error('SystemError ' + netdev.errno));
        else this.emit('ready');
      });
      return this;
    }
    write(chunk: Uint8Array | string): boolean {
      this.wbuf += typeof chunk === 'string' ? chunk : String.fromCharCode(...chunk);
      t.globals.setTimeout(() => {
        if (!this.wbuf) return;
        const d = this.wbuf;
        this.wbuf = '';
        netdev.write(this._fd, d, (err) => {
          if (err) this.emit('error', new Error('SystemError ' + netdev.errno));
        });
      }, 0);
      return false;
    }
    destroy(): void {
      if (this.destroyed) return;
      netdev.close(this._fd, (err) => {
        if (err) this.emit('error', new Error('SystemError ' + netdev.errno));
        else this.afterDestroy();
      });
    }
  }
  net.module = { Socket };
  return net;
}

/**
 * A peer that answers HTTP: one reply per complete request (head plus
 * Content-Length bytes), then its FIN, as a server does for HTTP/1.0 or
 * Connection: close.
 */
export function httpPeer(reply: (request: string) => string, o: { fin?: boolean } = {}): Peer & { requests: string[] } {
  const requests: string[] = [];
  // The partial request lives on its connection: a Map keyed by connections
  // keeps a little per key on the engine even after delete.
  type Conn = PeerConn & { got?: string };
  return {
    requests,
    connect: (c) => c.accept(),
    data(c: Conn, bytes) {
      const got = (c.got || '') + String.fromCharCode(...bytes);
      c.got = got;
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const cl = /\r\ncontent-length: *(\d+)/i.exec(got.slice(0, end));
      if (got.length < end + 4 + (cl ? Number(cl[1]) : 0)) return;
      c.got = '';
      requests.push(got);
      c.send(reply(got));
      if (o.fin !== false) c.fin();
    },
  };
}
