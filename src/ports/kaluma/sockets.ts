import type { Socket, SocketFactory, TimerId } from '../ports';
import { kalumaTimers } from './time';
import { keepCollecting } from './heap';

// TCP straight on the Pico W's driver object (__netdev), not Kaluma's net
// module, which keeps heap for good once required and makes every connection
// a stream. Nothing here is made before the first connect.
// Kaluma 1.2.1's TCP defects are absorbed here (docs/architecture.md, The
// ports and the runtime's defects): a connection lwIP dropped is found by a
// zero-length write and abandoned, never closed (that frees its PCB twice);
// a slot we close first is taken back by a placeholder, so a late FIN cannot
// close the next socket on it; writes go to the driver in pieces, as one
// write is copied whole onto the C stack; a radio reset empties slots silently.

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
// Declared here, not in kaluma.d.ts, so host-side tests type-check this file.
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

// A const enum is inlined by the build; a module-level const stays on the heap.
const enum K {
  /** Largest driver write, counted as the driver copies it (a byte >= 0x80 takes two). */
  PIECE = 1024,
  /** Bytes turned into a string at a time when a piece is written. */
  SPAN = 128,
  /** How long a finished exchange waits for the server's FIN before closing itself. */
  LINGER_MS = 3000,
  /**
   * How long a placeholder holds a slot we closed first: lwIP gives up on
   * FIN_WAIT_2 after 20 s of silence, and the margin covers a resent FIN.
   */
  QUARANTINE_MS = 25000,
  /**
   * Placeholders held at most, the oldest evicted first: of the 16 slots, 12
   * abandoned connections restart the board, and one slot is kept for the next
   * connection and one for an exchange waiting for its FIN.
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
 * True when the driver (a radio reset) or lwIP (a drop: abandoned, never
 * closed, its slot kept unhooked) ended the connection under us; it is forgotten then.
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
  // A connection that never completed its handshake is freed by lwIP at once.
  if (!c.up_) return;
  // Quarantine: a socket that never connects takes fd back at once, so the
  // peer's late FIN closes it, harmlessly, not the next connection. socket()
  // hands out the lowest free slot: those taken before fd are closed again.
  // With Wi-Fi down socket() throws and no placeholder is made.
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
  // Every placeholder waits as long, so the timer that fires is always the
  // oldest's (unhold with no argument).
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
      // ASCII by the port's contract: a piece is PIECE characters, and a
      // request of one piece goes as the very string it is.
      end = i + K.PIECE;
      piece = i || end < data.length ? data.substring(i, end) : data;
    } else {
      for (let room: number = K.PIECE; end < data.length && room > 0; end++) room -= (data[end] as number) < 128 ? 1 : 2;
      // Made SPAN bytes at a time: apply() lists its arguments on the heap.
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
      // Blocks in DNS for a host name; throws when it fails.
      __netdev.connect(fd, target, port);
      // No PCB to be had, or lwIP refused to start: the slot never connected.
      if (__netdev.errno === -1) throw new Error('the driver could not connect');
    } catch (e) {
      // Nothing reached the peer: the caller gets the throw, not an onClose as well.
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
