// Shared pieces for the HTTP client tests: real timers behind the Timers port,
// a tap on the Socket port, and raw TCP servers bound to 127.0.0.1 port 0.
import { createServer, type AddressInfo, type Server, type Socket as NetSocket } from 'node:net';
import type { Socket, SocketFactory, TimerId, Timers } from '../../src/ports/ports';

/** Node's timers as the port, counting the ones still pending. */
export function realTimers(): Timers & { pending(): number } {
  const live = new Set<TimerId>();
  return {
    setTimeout(cb, ms) {
      const id = setTimeout(() => {
        live.delete(id);
        cb();
      }, ms);
      live.add(id);
      return id;
    },
    clearTimeout(id) {
      live.delete(id);
      clearTimeout(id as ReturnType<typeof setTimeout>);
    },
    pending: () => live.size,
  };
}

/** Wraps a factory to see what the client writes and how the response arrives. */
export interface Tap {
  factory: SocketFactory;
  /** Sizes of every write, in order, in bytes. */
  writes: number[];
  /** What each write was handed: 'string' (ASCII) or 'bytes'. */
  kinds: ('string' | 'bytes')[];
  /** Sizes of every received segment, in order. */
  segments: number[];
  destroyed: number;
  /** Exchanges that ended with the server asked to close first. */
  released: number;
  /** Resolves once the client has received `total` bytes on the current connection. */
  until(total: number): Promise<void>;
}

export function tap(inner: SocketFactory): Tap {
  let received = 0;
  let waiters: { total: number; go: () => void }[] = [];
  const wake = (): void => {
    const ready = waiters.filter((x) => received >= x.total);
    waiters = waiters.filter((x) => received < x.total);
    for (const x of ready) x.go();
  };
  const t: Tap = {
    writes: [],
    kinds: [],
    segments: [],
    destroyed: 0,
    released: 0,
    until: (total) =>
      new Promise<void>((go) => {
        waiters.push({ total, go });
        wake();
      }),
    factory: {
      connect(host, port, h) {
        received = 0;
        const s = inner.connect(host, port, {
          onConnect: () => h.onConnect(),
          onData: (b) => {
            received += b.length;
            t.segments.push(b.length);
            h.onData(b);
            wake();
          },
          onClose: () => h.onClose(),
        });
        const wrapped: Socket = {
          write(data) {
            // A string holds only ASCII (the port's contract): a byte a character.
            t.writes.push(data.length);
            t.kinds.push(typeof data === 'string' ? 'string' : 'bytes');
            s.write(data);
          },
          release() {
            t.released++;
            s.release();
          },
          destroy() {
            t.destroyed++;
            s.destroy();
          },
        };
        return wrapped;
      },
      abandoned: () => inner.abandoned(),
    },
  };
  return t;
}

export interface RawServer {
  port: number;
  /** Every connection accepted so far. */
  sockets: NetSocket[];
  close(): Promise<void>;
}

/**
 * A TCP server that collects each request (head, plus a body by
 * Content-Length) and hands it to `respond` with the socket.
 */
export async function rawServer(
  respond: (sock: NetSocket, request: Buffer) => void | Promise<void>,
): Promise<RawServer> {
  const state: RawServer = { port: 0, sockets: [], close: async () => {} };
  const server: Server = createServer({ allowHalfOpen: true, noDelay: true }, (sock) => {
    state.sockets.push(sock);
    sock.on('error', () => {});
    let got = Buffer.alloc(0);
    let answered = false;
    sock.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const end = got.indexOf('\r\n\r\n');
      if (answered || end < 0) return;
      const m = /content-length: *(\d+)/i.exec(got.subarray(0, end).toString('latin1'));
      if (got.length < end + 4 + (m ? Number(m[1]) : 0)) return;
      answered = true;
      void respond(sock, got);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  state.port = (server.address() as AddressInfo).port;
  state.close = () =>
    new Promise<void>((ok) => {
      for (const s of state.sockets) s.destroy();
      server.close(() => ok());
    });
  return state;
}

/** Writes each part, waiting until the client has received it before the next. */
export async function deliver(sock: NetSocket, t: Tap, parts: Uint8Array[]): Promise<void> {
  let total = 0;
  for (const part of parts) {
    if (sock.destroyed) return;
    sock.write(part);
    total += part.length;
    await t.until(total);
  }
}

/** Resolves once the peer has closed its side of `sock` (FIN or reset). */
export function peerGone(sock: NetSocket): Promise<void> {
  return new Promise<void>((ok) => {
    if (sock.readableEnded || sock.destroyed) return ok();
    sock.once('end', () => ok());
    sock.once('close', () => ok());
  });
}

export const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
