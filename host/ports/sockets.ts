// The Socket port over node:net, shaped like Kaluma's sockets: events map onto
// the three handlers, errors only show up as a close, and a connect that the
// board would refuse outright can be made to throw synchronously.
import { connect as netConnect } from 'node:net';
import type { Socket, SocketFactory, SocketHandlers } from '../../src/ports/ports';

export interface NodeSocketsOptions {
  /** Returns a message to make connect() throw it, as Kaluma does with Wi-Fi down. */
  throwOnConnect?: () => string | undefined;
  /** How long release() waits for the peer to close. Default 3000. */
  lingerMs?: number;
}

/** Any character that is not ASCII. */
const NOT_ASCII = /[\u0080-\uffff]/;

export function createNodeSockets(o: NodeSocketsOptions = {}): SocketFactory {
  return {
    connect(host: string, port: number, h: SocketHandlers): Socket {
      const refusal = o.throwOnConnect?.();
      if (refusal !== undefined) throw new Error(refusal);
      const s = netConnect({ host, port });
      let closed = false;
      const close = (): void => {
        if (closed) return;
        closed = true;
        h.onClose();
      };
      s.on('connect', () => h.onConnect());
      // Hand out a plain view, so code under test cannot lean on Buffer methods.
      s.on('data', (d: Buffer) => h.onData(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)));
      // 'error' is always followed by 'close'; the once-guard keeps it to one call.
      s.on('error', close);
      s.on('close', close);
      return {
        write(data: Uint8Array | string): void {
          if (s.destroyed) throw new Error('socket closed');
          if (typeof data === 'string') {
            // The contract: ASCII only. Thrown here, so that a test finds a caller that breaks it.
            if (NOT_ASCII.test(data)) throw new Error('a string written to a socket must be ASCII');
            s.write(data, 'latin1');
          } else s.write(data);
        },
        // As on the board: the peer closes first; after LINGER_MS we close it.
        release(): void {
          if (closed || s.destroyed) return;
          setTimeout(() => s.destroy(), o.lingerMs ?? 3000).unref();
        },
        destroy(): void {
          s.destroy();
        },
      };
    },
    abandoned: () => 0,
  };
}
