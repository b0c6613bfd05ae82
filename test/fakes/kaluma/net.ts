// The Pico W's radio drivers (module_pico_cyw43.c): the TCP one
// (global.__netdev) and the 802.11 one (global.__ieee80211dev, see
// createKalumaRadio), modelled from their source with the defects a program
// can walk into (docs/architecture.md, The ports and the runtime's defects), for code that runs
// against Kaluma itself; and Kaluma's net.Socket over the TCP one, for a
// program that requires 'net' (the agent's ports do not). What would hurt the
// board goes into `violations`:
// - closing a connection that lwIP already dropped (refused, reset): its PCB
//   is freed twice and lwIP panics;
// - a FIN that arrives after we closed first closes whichever socket now
//   holds the same slot (the lowest free slot is handed out again at once),
//   when that socket was given to connect(): connected, or in connect()'s DNS
//   wait, where it loses a PCB for good. On a slot never given to connect()
//   (a placeholder) the driver finds no PCB to close: harmless, only counted
//   in placeholderFins;
// - a radio reset that closes a connection lwIP already dropped;
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
  /**
   * The PCB a radio reset closed and left in the slot (km_cyw43_deinit does
   * not clear tcp_pcb): the next close of the slot without a connect() in
   * between closes it again.
   */
  stale: Pcb | undefined;
  /** connect() was called since socket() took the slot. */
  tried: boolean;
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
  /**
   * The same as the driver write's own string (a byte a character), taken
   * instead of data() when the peer has it. With keepReceived false no copy
   * is made: on the board the driver hands the string to C, and a heap
   * bench's stand-in runs this on the device's heap.
   */
  text?(c: PeerConn, s: string): void;
  /** The client closed its side. */
  closed?(c: PeerConn): void;
}

export interface KalumaNet {
  /** global.__netdev */
  netdev: Record<string, unknown> & { errno: number };
  /** require('net'): Kaluma's net.Socket over the driver, for a program that asks for it. */
  module: { Socket: new () => unknown };
  violations: string[];
  /** Late FINs that closed a placeholder: a slot never given to connect() (harmless). */
  placeholderFins: number;
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
  /**
   * What a radio reset does to the sockets (km_cyw43_deinit): every slot is
   * dropped without its close_cb, and every PCB in one is closed.
   */
  radioReset(): void;
  /** Decides whether socket() throws 'WiFi is not connected.' */
  link: { up: boolean };
  dns: Record<string, string>;
}

const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;
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

/**
 * `keepReceived`: false drops what each connection received once the peer
 * had it (a heap bench's stand-in, whose own copies would count in every
 * figure); `received` stays empty then.
 */
export function createKalumaNet(o: { timers: KalumaTimers; peer: Peer; latencyMs?: number; keepReceived?: boolean }): KalumaNet {
  const lat = o.latencyMs ?? 1;
  const t = o.timers;
  const slots: Slot[] = Array.from({ length: SLOTS }, () => ({ fd: -1, state: CLOSED, pcb: undefined, stale: undefined, tried: false, obj: undefined, conn: undefined }));
  const pool: Pcb[] = Array.from({ length: PCBS }, (_, n) => ({ n, freed: true, slot: -1, weClosed: false, peerClosed: false, since: 0 }));
  let allocs = 0;
  const net: KalumaNet = {
    netdev: undefined as unknown as KalumaNet['netdev'],
    module: undefined as unknown as KalumaNet['module'],
    violations: [],
    placeholderFins: 0,
    driverWrites: [],
    dnsLookups: 0,
    slotsInUse: () => slots.filter((s, i) => s.fd === i).length,
    releaseAbandoned() {
      let n = 0;
      slots.forEach((s, i) => {
        if (s.fd === i && s.pcb && (s.pcb.freed || s.pcb.slot !== i)) {
          Object.assign(s, { fd: -1, state: CLOSED, pcb: undefined, stale: undefined, tried: false, obj: undefined, conn: undefined });
          n++;
        }
      });
      return n;
    },
    pcbsFree: () => pool.filter((p) => p.freed).length,
    radioReset() {
      slots.forEach((s, i) => {
        if (s.fd !== i) return;
        s.fd = -1;
        const p = s.pcb;
        if (p) closePcb(i, p, 'radio reset: ');
        // The pointer stays; so does the state (deinit sets neither).
        s.stale = p || s.stale;
        s.pcb = undefined;
        s.conn = undefined;
        s.obj = undefined;
      });
    },
    link: { up: true },
    dns: {},
  };
  // One optional argument, not a rest list: a heap bench runs this on the
  // device's engine, where every array made here counts as the program's.
  const call = (obj: Record<string, unknown> | undefined, name: string, arg?: unknown): void => {
    const f = obj && obj[name];
    if (typeof f === 'function') (f as (a?: unknown) => void)(arg);
  };
  const free = (p: Pcb, why: string): void => {
    if (p.freed) net.violations.push(why + ': PCB ' + p.n + ' freed twice (lwIP panics)');
    p.freed = true;
    p.slot = -1;
  };

  /** tcp_close of the PCB in slot fd, by us (a close or a radio reset): the peer's FIN is still to come. `what` prefixes a violation. */
  function closePcb(fd: number, p: Pcb, what: string): void {
    const s = slots[fd]!;
    if (p.freed) net.violations.push(what + 'closed slot ' + fd + ' whose connection lwIP had already dropped: PCB ' + p.n + ' freed twice (lwIP panics)');
    else if (p.slot !== fd) net.violations.push(what + 'closed slot ' + fd + ' whose PCB lwIP had given to the connection on slot ' + p.slot);
    else if (!p.weClosed) {
      p.weClosed = true;
      // A peer that never sends its FIN: lwIP gives up on FIN_WAIT_2 after 20 s.
      // Only while that FIN is still to come (a peer that closed first frees
      // the PCB below): on the engine, a timer for every connection held
      // 20 s of closures in every heap figure. Not a later connection's PCB.
      if (!p.peerClosed) {
        const mine = p.since;
        t.after(20000, () => {
          if (!p.freed && p.since === mine && p.weClosed && !p.peerClosed && p.slot === fd) {
            p.freed = true;
            p.slot = -1;
          }
        });
      }
      if (s.conn) {
        const c = s.conn;
        t.after(lat, () => o.peer.closed?.(c));
      }
      if (p.peerClosed) free(p, 'close');
    }
  }

  /** __net_socket_close: the slot is released and its close_cb runs. */
  function socketClose(fd: number, byPeer: boolean): void {
    const s = slots[fd]!;
    s.state = CLOSED;
    s.fd = -1;
    const stale = !s.pcb;
    const p = s.pcb || s.stale;
    s.pcb = s.stale = undefined;
    if (p) {
      // tcp_close by us, or of a pointer a radio reset left; else the peer's FIN on its own connection.
      if (!byPeer || stale || p.freed || p.slot !== fd) closePcb(fd, p, '');
      else free(p, 'close');
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
      let fd = -1;
      for (let i = 0; i < SLOTS && fd < 0; i++) if ((slots[i] as Slot).fd !== i) fd = i;
      if (fd < 0) throw new Error('EREMOTEIO');
      const s = slots[fd]!;
      s.fd = fd;
      s.state = CLOSED;
      s.tried = false;
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
        s.tried = true;
        let ip = host;
        if (!IPV4.test(host)) {
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
        let p: Pcb | undefined;
        for (let i = 0; i < PCBS && !p; i++) if ((pool[i] as Pcb).freed) p = pool[i];
        if (!p) {
          let closing: Pcb | undefined;
          for (let i = 0; i < PCBS; i++) {
            const x = pool[i] as Pcb;
            if (x.weClosed && (!closing || x.since < closing.since)) closing = x;
          }
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
          s.stale = undefined;
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
                    // A slot never given to connect() has no PCB of its own to lose: a placeholder.
                    if (s2.tried) net.violations.push('a late FIN closed the next socket on slot ' + at);
                    else net.placeholderFins++;
                    if (s2.stale === p) s2.stale = undefined;
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
            const peer = o.peer;
            const keep = o.keepReceived !== false;
            // Bytes only where something reads them: a text peer with nothing kept takes the write's own string.
            const bytes = keep || !peer.text ? latin1(data) : undefined;
            t.after(lat, () => {
              if (bytes && keep) c.received.push(bytes);
              if (peer.text) peer.text(c, data);
              else if (peer.data && bytes) peer.data(c, bytes);
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

/** One join the 802.11 driver made, as module_pico_cyw43.c hands it to the radio. */
export interface Join {
  ssid: string;
  /** A string password is the key; anything else joins with no key. */
  key: string | null;
  auth: 'OPEN' | 'WPA2_MIXED_PSK' | 'WPA2_AES_PSK' | 'WPA_PSK' | 'WEP_PSK';
}

export interface KalumaRadio {
  /** global.__ieee80211dev */
  dev: Record<string, unknown> & { errno: number };
  /** The access point is in range. While it is not, the link is down. */
  ap: boolean;
  /** Associated with an address: what get_connection reports and the TCP driver's socket() checks. */
  up: boolean;
  /** Every join asked of the driver. */
  joins: Join[];
  /** Radio resets (each drops every socket slot, see KalumaNet.radioReset). */
  resets: number;
  /** The next scans fail (the driver then calls back with no list). */
  scanFails: boolean;
}

/**
 * The Pico W's 802.11 driver object (module_pico_cyw43.c) for the network
 * `ssid` (and `password`, when given). Every call runs its callback before
 * it returns, with an error of 0 whatever happened (the driver's -1 does
 * not survive its conversion); the driver's own errno is right. A join that
 * succeeds calls the assoc_cb and connect_cb hooks, a disconnect the
 * disconnect_cb one. With `net`, its socket() follows this link, and a radio
 * reset drops its slots.
 */
export function createKalumaRadio(o: { ssid: string; password?: string; net?: KalumaNet }): KalumaRadio {
  let up = false;
  const hook = (name: string): void => {
    const f = r.dev[name];
    if (typeof f === 'function') (f as () => void)();
  };
  const r: KalumaRadio = {
    dev: {
      errno: 0,
      connect(info: Record<string, unknown>, cb?: (err: number) => void): void {
        if (typeof info.ssid !== 'string') throw new TypeError('SSID error');
        const key = typeof info.password === 'string' ? info.password : null;
        // The default is OPEN; a key of 8 or more characters makes it WPA2/WPA mixed; a known security string decides.
        let auth: Join['auth'] = key !== null && key.length >= 8 ? 'WPA2_MIXED_PSK' : 'OPEN';
        const sec = { WPA2_WPA_PSK: 'WPA2_MIXED_PSK', WPA2_PSK: 'WPA2_AES_PSK', WPA_PSK: 'WPA_PSK', WEP_PSK: 'WEP_PSK', OPEN: 'OPEN' } as const;
        if (typeof info.security === 'string' && info.security in sec) auth = sec[info.security as keyof typeof sec];
        r.joins.push({ ssid: info.ssid, key, auth });
        up = r.ap && info.ssid === o.ssid && (o.password === undefined || key === o.password);
        r.dev.errno = up ? 0 : -1;
        if (up) {
          hook('assoc_cb');
          hook('connect_cb');
        }
        if (cb) cb(0);
      },
      get_connection(cb?: (err: number, info?: { ssid: string; bssid: string }) => void): void {
        r.dev.errno = r.up ? 0 : -1;
        if (cb) {
          if (r.up) cb(0, { ssid: o.ssid, bssid: '' });
          else cb(0);
        }
      },
      scan(cb?: (err: number, list?: unknown[]) => void): void {
        r.dev.errno = r.scanFails ? -1 : 0;
        if (!cb) return;
        if (r.scanFails) cb(0);
        else cb(0, r.ap ? [{ ssid: o.ssid, bssid: '00:11:22:33:44:55', security: 'WPA2_PSK', rssi: -50, channel: 6 }] : []);
      },
      disconnect(cb?: (err: number) => void): void {
        up = false;
        r.dev.errno = 0;
        hook('disconnect_cb');
        if (cb) cb(0);
      },
      reset(cb?: (err: number) => void): void {
        up = false;
        r.resets++;
        if (o.net) o.net.radioReset();
        r.dev.errno = 0;
        if (cb) cb(0);
      },
    },
    ap: true,
    get up(): boolean {
      // The access point gone: the link with it (nothing is emitted).
      if (!r.ap) up = false;
      return up;
    },
    set up(v: boolean) {
      up = v;
    },
    joins: [],
    resets: 0,
    scanFails: false,
  };
  if (o.net) o.net.link = r;
  return r;
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
