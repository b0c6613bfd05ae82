import type * as Net from 'net';
import type { Socket as KSocket } from 'net';
import type { Socket, SocketFactory, TimerId } from '../ports';
import { kalumaTimers } from './time';

// Kaluma's sockets, with the Pico W driver's defects absorbed here
// (../shared/kaluma-repros, rows 2, 3, 8):
// - lwIP frees a connection it drops by itself (refused, reset) and the
//   driver is never told: no event, and closing it later frees the PCB a
//   second time, which ends in an lwIP panic. Before every close and before
//   every new connection (the only times lwIP could hand the PCB out again)
//   each open connection is probed with a zero-length write, which fails on
//   a freed PCB; a dropped one is abandoned, never closed, and counted.
// - the driver never unhooks a closed socket, so a FIN that comes after we
//   closed closes whichever socket got the slot next, and if that one is
//   inside connect()'s DNS wait a PCB is lost for good. So the server closes
//   first (release() waits for its FIN), and a host name is resolved once and
//   then connected to by address.
// - socket.write() pieces written in one loop turn reach the driver as one
//   write copied whole onto the C stack (dropped above 11,680 B), and each
//   write takes a Kaluma timer id. Writes go to the driver directly, cut into
//   pieces of at most PIECE bytes of the driver's copy.

// Declared here rather than in kaluma.d.ts so that host-side tests can
// type-check this file too (Node's own 'net' types know nothing of these).
/** The Pico W's TCP driver object behind Kaluma's net module (module_pico_cyw43.c). */
declare const __netdev: {
  /** Set by every call: 0 or -1 (lwIP's error is not passed on). */
  errno: number;
  write(fd: number, data: string): void;
  /** The driver's record of a slot (undefined once the driver closed it). */
  get(fd: number): { state?: number; read_cb?: unknown; close_cb?: unknown; connect_cb?: unknown; shutdown_cb?: unknown } | undefined;
};
/** What the port reads of Kaluma's net.Socket beyond its documented surface. */
interface Inside {
  /** The driver's slot (-1 before one was taken). */
  _fd: number;
  remoteAddress: string | null;
}
const fdOf = (s: KSocket): number => (s as unknown as Inside)._fd;

/** Largest driver write, counted as the driver copies it (a byte >= 0x80 takes two). */
export const PIECE = 1024;
/** Bytes turned into a string at a time when a piece is written. */
const SPAN = 128;
/** How long a finished exchange waits for the server's FIN before closing itself. */
export const LINGER_MS = 3000;
const CLOSED = 0;
const DOTTED = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

// Kaluma's net module, required at the first connect (see kaluma.d.ts): with
// events and stream it keeps about 8.4 KB of heap from then on, which a
// board that never goes online does not pay.
let net: typeof Net | undefined;

interface Conn {
  s: KSocket;
  /** Closed by the driver or by us, or abandoned: nothing more to do. */
  done: boolean;
  linger: TimerId | undefined;
}

const open: Conn[] = [];
const resolved: Record<string, string> = {};
let abandoned = 0;

function forget(c: Conn): void {
  c.done = true;
  if (c.linger !== undefined) kalumaTimers.clearTimeout(c.linger);
  c.linger = undefined;
  const i = open.indexOf(c);
  if (i >= 0) open.splice(i, 1);
}

/** True when lwIP dropped the connection on its own (its PCB is freed). */
function dropped(c: Conn): boolean {
  const d = __netdev.get(fdOf(c.s));
  // A slot the driver never connected has no PCB of lwIP's to free twice.
  if (!d || d.state === CLOSED) return false;
  __netdev.write(fdOf(c.s), '');
  return __netdev.errno === -1;
}

function abandon(c: Conn): void {
  const d = __netdev.get(fdOf(c.s));
  // The slot stays taken; unhooked, at least the socket's objects can go.
  if (d) d.read_cb = d.close_cb = d.connect_cb = d.shutdown_cb = undefined;
  abandoned++;
  forget(c);
}

function close(c: Conn): void {
  if (c.done) return;
  if (dropped(c)) return abandon(c);
  forget(c);
  try {
    c.s.destroy();
  } catch {
    /* the driver may refuse; the slot is gone either way */
  }
}

export const kalumaSockets: SocketFactory = {
  connect(host, port, h) {
    for (let i = open.length - 1; i >= 0; i--) {
      const o = open[i] as Conn;
      if (dropped(o)) abandon(o);
    }
    const s = new (net || (net = (globalThis as unknown as { require(id: 'net'): typeof Net }).require('net'))).Socket();
    let told = false;
    let connected = false;
    // The connection's record is the Socket the caller holds, too.
    const c: Conn & Socket = {
      s,
      done: false,
      linger: undefined,
      write(bytes) {
        if (c.done) throw new Error('socket closed');
        for (let i = 0; i < bytes.length; ) {
          let end = i;
          for (let cost = 0; end < bytes.length && cost < PIECE; end++) cost += (bytes[end] as number) < 128 ? 1 : 2;
          // The piece's string is made SPAN bytes at a time: apply() lists its
          // arguments on the heap, which with the string's making takes about
          // 7 B a byte at once (8 KB for a whole piece, 2.4 KB this way).
          let piece = '';
          for (let k = i; k < end; k += SPAN) {
            const z = k + SPAN < end ? k + SPAN : end;
            // A small request goes as it is, without a view of it.
            piece += String.fromCharCode.apply(null, (k || z < bytes.length ? bytes.subarray(k, z) : bytes) as unknown as number[]);
          }
          __netdev.write(fdOf(s), piece);
          if (__netdev.errno === -1) throw new Error('the driver refused the write');
          i = end;
        }
      },
      release() {
        if (c.done || c.linger !== undefined) return;
        c.linger = kalumaTimers.setTimeout(() => {
          c.linger = undefined;
          close(c);
        }, LINGER_MS);
      },
      destroy() {
        // An address that never answered may be stale: resolve again next time.
        if (!connected) delete resolved[host];
        close(c);
      },
    };
    const tell = (): void => {
      if (told) return;
      told = true;
      h.onClose();
    };
    const target = resolved[host] || host;
    s.on('data', (d: Uint8Array | string) => {
      if (typeof d !== 'string') return h.onData(d);
      const b = new Uint8Array(d.length);
      for (let i = 0; i < d.length; i++) b[i] = d.charCodeAt(i) & 255;
      h.onData(b);
    });
    // 'close' comes when the driver closed the slot (the peer's FIN).
    s.on('close', () => {
      if (c.done) return;
      forget(c);
      tell();
    });
    // 'error' is a connect the driver refused at once; the slot stays ours to close.
    s.on('error', tell);
    try {
      s.connect({ host: target, port }, () => {
        connected = true;
        const a = (s as unknown as Inside).remoteAddress;
        if (target === host && !DOTTED.test(host) && a && DOTTED.test(a) && a !== '0.0.0.0') resolved[host] = a;
        h.onConnect();
      });
    } catch (e) {
      // Wi-Fi down, DNS failure or no free slot: nothing reached lwIP. The
      // caller gets the throw (the better reason), not an onClose as well.
      delete resolved[host];
      c.done = true;
      told = true;
      try {
        s.destroy();
      } catch {
        /* no slot was taken */
      }
      throw e;
    }
    open.push(c);
    return c;
  },
  abandoned: () => abandoned,
};
