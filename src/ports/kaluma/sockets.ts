import type { Socket, SocketFactory, TimerId } from '../ports';
import { kalumaTimers } from './time';
import { keepCollecting } from './heap';

// TCP straight on the Pico W's driver object (global.__netdev, made by
// module_pico_cyw43.c), not through Kaluma's net module: net with events and
// stream keeps about 7.5 KB of heap once required, and makes every connection
// a stream.Duplex. Nothing here is made before the first connect.
//
// The driver's defects are absorbed here (../shared/kaluma-repros, rows 2, 3, 8):
// - lwIP frees a connection it drops by itself (refused, reset) and the
//   driver is never told: no event, and closing it later frees the PCB a
//   second time, which ends in an lwIP panic. Before every close and before
//   every new connection (the only times lwIP could hand the PCB out again)
//   each open connection is probed with a zero-length write, which fails on
//   a freed PCB; a dropped one is abandoned, never closed, and counted.
// - the driver never unhooks a closed socket: lwIP's callbacks read the fd
//   from the slot itself, so a FIN that comes after we closed first closes
//   whichever socket holds that slot next (the lowest free one is handed out
//   again at once), and if that one is inside connect()'s DNS wait a PCB is
//   lost for good. So the server closes first where it can (release() waits
//   for its FIN), a host name is resolved once and then connected to by
//   address, and whenever we do close first the slot is taken back at once
//   by a placeholder socket that is never connected (see quarantine()).
// - socket.write() pieces written in one loop turn reach the driver as one
//   write copied whole onto the C stack (dropped above 11,680 B). Writes go to
//   the driver directly, cut into pieces of at most PIECE bytes of its copy.
//   The driver takes a string: an ASCII request comes as one and is handed
//   on as it is (cut with substring only when it is longer than a piece);
//   only bytes are turned into strings here.
// - a radio reset drops every slot without a word: before the port touches a
//   slot it checks that the slot still holds the object it was given.

/** What get(fd) returns: the driver's record of a slot, whose hooks it calls (with no `this`). */
interface Slot {
  /** 0 until connect() started a connection on it. */
  state?: number;
  /** The address connect() resolved and connected to. */
  raddr?: string;
  connect_cb?: (() => void) | undefined;
  read_cb?: ((d: Uint8Array) => void) | undefined;
  /** Runs when the slot is closed, by the peer's FIN or by close(). */
  close_cb?: (() => void) | undefined;
}
// Declared here rather than in kaluma.d.ts so that host-side tests can
// type-check this file too.
/** The Pico W's TCP driver object (module_pico_cyw43.c). Every callback argument is optional. */
declare const __netdev: {
  /** Set by every call: 0 or -1 (lwIP's error is not passed on). */
  errno: number;
  /**
   * Takes the lowest free of 16 slots. Throws 'WiFi is not connected.' while
   * the link is down, a SystemError when no slot is free.
   */
  socket(domain: 'AF_INET', type: 'STREAM'): number;
  /** The slot's object (the same one each time), undefined once the slot is closed. */
  get(fd: number): Slot | undefined;
  /** Resolves the host (a blocking DNS wait, may throw), then starts the handshake. */
  connect(fd: number, host: string, port: number): void;
  write(fd: number, data: string): void;
  close(fd: number): void;
};

// Compile-time numbers: a const enum is inlined by the bundler, where a
// module constant would keep a binding in the bundle's scope.
const enum K {
  /** Largest driver write, counted as the driver copies it (a byte >= 0x80 takes two). */
  PIECE = 1024,
  /** Bytes turned into a string at a time when a piece is written. */
  SPAN = 128,
  /** How long a finished exchange waits for the server's FIN before closing itself. */
  LINGER_MS = 3000,
  /**
   * How long a placeholder holds a slot we closed first. lwIP ends a
   * connection in FIN_WAIT_2 whose peer sent nothing for 20 s
   * (TCP_FIN_WAIT_TIMEOUT, checked every 500 ms): after that no FIN of it can
   * come. The count starts at the last segment from the peer, normally the ACK
   * of our FIN a round trip after the close; 25 s leaves room for that FIN to
   * be sent a second time (lwIP's first retransmission comes after 3 s).
   */
  QUARANTINE_MS = 25000,
  /**
   * Placeholders held at most; a new one evicts the oldest. The driver has 16
   * slots and the runtime restarts at 12 abandoned connections, so 5 can be
   * left: 3 placeholders still leave one for the next connection and one for a
   * finished exchange waiting for its FIN. A connect that finds no free slot
   * takes one back from the placeholders anyway.
   */
  PLACEHOLDERS = 3,
}
// For the tests and the bench (the device bundle drops what nothing uses).
export const PIECE: number = K.PIECE;
export const LINGER_MS: number = K.LINGER_MS;
export const QUARANTINE_MS: number = K.QUARANTINE_MS;
export const PLACEHOLDERS: number = K.PLACEHOLDERS;

// Properties ending in '_' get short names in the device build
// (scripts/build/mangle.ts); the driver's own (Slot) keep theirs.
interface Conn extends Socket {
  fd_: number;
  slot_: Slot;
  /** Closed by the driver or by us, or abandoned: nothing more to do. */
  done_: boolean;
  /** The handshake completed: lwIP holds the connection until a FIN or a close. */
  up_: boolean;
  linger_: TimerId | undefined;
}

/** A slot taken back after we closed first, and the timer that gives it up. */
interface Held {
  fd_: number;
  slot_: Slot;
  timer_: TimerId;
}

const open: Conn[] = [];
const held: Held[] = [];
const resolved: Record<string, string> = {};
let abandoned = 0;

/** The slot still holds what the driver gave us (a radio reset drops every slot silently). */
const ours = (fd: number, obj: Slot): boolean => __netdev.get(fd) === obj;

function forget(c: Conn): void {
  c.done_ = true;
  if (c.linger_ !== undefined) kalumaTimers.clearTimeout(c.linger_);
  c.linger_ = undefined;
  const i = open.indexOf(c);
  if (i >= 0) open.splice(i, 1);
}

/**
 * Settles a connection the driver or lwIP may have ended under us; true when
 * it did (the connection is forgotten then). A radio reset: the slot may be
 * another socket's by now. lwIP dropped it on its own (its PCB is freed):
 * abandoned, never closed; the slot stays taken, unhooked, at least the
 * connection's objects can go.
 */
function gone(c: Conn): boolean {
  if (!ours(c.fd_, c.slot_)) {
    forget(c);
    return true;
  }
  // A slot the driver never connected has no PCB of lwIP's to free twice.
  if (c.slot_.state === 0) return false;
  __netdev.write(c.fd_, '');
  if (__netdev.errno !== -1) return false;
  c.slot_.read_cb = c.slot_.close_cb = c.slot_.connect_cb = undefined;
  abandoned++;
  forget(c);
  return true;
}

function close(c: Conn): void {
  if (c.done_ || gone(c)) return;
  forget(c);
  c.slot_.read_cb = c.slot_.close_cb = c.slot_.connect_cb = undefined;
  const fd = c.fd_;
  __netdev.close(fd);
  // A connection that never completed its handshake is freed by lwIP at
  // once (SYN_SENT); one that did waits in FIN_WAIT for the peer's FIN.
  if (!c.up_) return;
  // Quarantine: fd, just closed first by us, is taken back at once by a
  // socket that is never connected, so that the peer's late FIN closes that
  // placeholder (the driver finds no PCB on it: harmless) and not the next
  // connection. socket() hands out the lowest free slot: slots taken before
  // fd's turn are closed again at once. With Wi-Fi down socket() throws: no
  // placeholder (nothing arrives while the link is down; a FIN sent again
  // after it comes back within lwIP's 20 s is left to chance).
  let extra: number[] | undefined;
  let obj: Slot | undefined;
  for (let i = 0; i <= fd; i++) {
    let got: number;
    try {
      got = __netdev.socket('AF_INET', 'STREAM');
    } catch {
      break;
    }
    if (got === fd) {
      obj = __netdev.get(fd);
      break;
    }
    (extra || (extra = [])).push(got);
  }
  if (extra) for (let i = 0; i < extra.length; i++) __netdev.close(extra[i] as number);
  if (!obj) return;
  obj.close_cb = finned;
  // Every placeholder waits as long, and one that ends early takes its timer
  // with it: the timer that fires is always the oldest placeholder's (the
  // timer calls unhold with no argument: the oldest).
  held.push({ fd_: fd, slot_: obj, timer_: kalumaTimers.setTimeout(unhold, K.QUARANTINE_MS) });
  // More than PLACEHOLDERS held: the oldest goes.
  if (held[K.PLACEHOLDERS]) unhold();
}

/** A placeholder's close_cb, one for all: a placeholder whose slot was closed under it (by a FIN) is done. */
function finned(): void {
  for (let i = held.length - 1; i >= 0; i--) if (!ours((held[i] as Held).fd_, (held[i] as Held).slot_)) unhold(i);
}

/** Ends placeholder i (the oldest by default): its slot is closed, unless a FIN or a radio reset closed it already. */
function unhold(i = 0): void {
  const q = held[i];
  if (!q) return;
  held.splice(i, 1);
  kalumaTimers.clearTimeout(q.timer_);
  if (ours(q.fd_, q.slot_)) {
    q.slot_.close_cb = undefined;
    __netdev.close(q.fd_);
  }
}

/**
 * A connection's write, one function for all: the request goes to the driver
 * in pieces of at most PIECE bytes of its copy; a refused piece throws.
 */
function write(this: Conn, data: Uint8Array | string): void {
  const fd = this.fd_;
  if (this.done_ || !ours(fd, this.slot_)) throw new Error('socket closed');
  const text = typeof data === 'string';
  for (let i = 0; i < data.length; ) {
    let end = i;
    let piece = '';
    if (text) {
      // ASCII only (the port's contract; not checked here, the client
      // hands over only a request it found ASCII): a character is one
      // byte of the driver's copy, so a piece is PIECE characters, and a
      // request of one piece goes as the very string it is, no copy.
      end = i + K.PIECE;
      piece = i || end < data.length ? data.substring(i, end) : data;
    } else {
      for (let room: number = K.PIECE; end < data.length && room > 0; end++) room -= (data[end] as number) < 128 ? 1 : 2;
      // The piece's string is made SPAN bytes at a time: apply() lists its
      // arguments on the heap, which with the string's making takes about
      // 7 B a byte at once (8 KB for a whole piece, 2.4 KB this way).
      for (let k = i; k < end; k += K.SPAN) {
        const z = k + K.SPAN < end ? k + K.SPAN : end;
        // A small request goes as it is, without a view of it.
        piece += String.fromCharCode.apply(null, (k || z < data.length ? data.subarray(k, z) : data) as unknown as number[]);
      }
    }
    // One driver write; a refusal means the connection is gone.
    __netdev.write(fd, piece);
    if (__netdev.errno === -1) throw new Error('the driver refused the write');
    i = end;
  }
}

export const kalumaSockets: SocketFactory = {
  connect(host, port, h) {
    keepCollecting();
    for (let i = open.length - 1; i >= 0; i--) gone(open[i] as Conn);
    const target = resolved[host] || host;
    // A free slot; when none is left, placeholders give theirs up, oldest first.
    let fd: number;
    for (;;) {
      try {
        fd = __netdev.socket('AF_INET', 'STREAM');
        break;
      } catch (e) {
        // 'WiFi is not connected.' (or not initialised) is not for want of a slot.
        if (!held.length || String(e).indexOf('WiFi') >= 0) throw e;
        unhold();
      }
    }
    const obj = __netdev.get(fd) as Slot;
    // The connection's record is the Socket the caller holds, too.
    const c: Conn = {
      fd_: fd,
      slot_: obj,
      done_: false,
      up_: false,
      linger_: undefined,
      write,
      release() {
        if (c.done_ || c.linger_ !== undefined) return;
        // close() forgets c, which clears c.linger_, on every path.
        c.linger_ = kalumaTimers.setTimeout(() => close(c), K.LINGER_MS);
      },
      destroy() {
        // An address that never answered may be stale: resolve again next time.
        if (!c.up_) delete resolved[host];
        close(c);
      },
    };
    obj.connect_cb = () => {
      if (c.done_) return;
      c.up_ = true;
      const a = obj.raddr;
      const dotted = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
      if (target === host && !dotted.test(host) && a && dotted.test(a) && a !== '0.0.0.0') resolved[host] = a;
      h.onConnect();
    };
    obj.read_cb = (d) => {
      if (!c.done_) h.onData(d);
    };
    // The driver closed the slot: the peer's FIN.
    obj.close_cb = () => {
      if (c.done_) return;
      forget(c);
      h.onClose();
    };
    try {
      // Blocks in DNS for a host name (at most ~3 s); throws when it fails.
      __netdev.connect(fd, target, port);
      // No PCB to be had, or lwIP refused to start: the slot never connected.
      if (__netdev.errno === -1) throw new Error('the driver could not connect');
    } catch (e) {
      // Wi-Fi down, DNS failure or no PCB: nothing reached the peer. The
      // caller gets the throw (the better reason), not an onClose as well.
      delete resolved[host];
      c.done_ = true;
      obj.read_cb = obj.close_cb = obj.connect_cb = undefined;
      if (ours(fd, obj)) __netdev.close(fd);
      throw e;
    }
    open.push(c);
    return c;
  },
  abandoned: () => abandoned,
};

/** Placeholders held now (for the tests and the bench). */
export const placeholders = (): number => held.length;
