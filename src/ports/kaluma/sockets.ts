import { Socket as KSocket } from 'net';
import type { Socket, SocketFactory } from '../ports';

// Kaluma's sockets: connect() throws synchronously (Wi-Fi down, DNS, no slot)
// and refused/reset connections may never produce an event, so the HTTP
// client owns every deadline. end() is never used: its FIN makes Node
// servers drop the request.
export const kalumaSockets: SocketFactory = {
  connect(host, port, h) {
    const s = new KSocket();
    let closed = false;
    const close = (): void => {
      if (closed) return;
      closed = true;
      h.onClose();
    };
    s.on('data', (d) => {
      if (typeof d !== 'string') return h.onData(d);
      const b = new Uint8Array(d.length);
      for (let i = 0; i < d.length; i++) b[i] = d.charCodeAt(i) & 255;
      h.onData(b);
    });
    s.on('close', close);
    s.on('error', close);
    try {
      s.connect({ host, port }, () => h.onConnect());
    } catch (e) {
      // A socket that threw during DNS keeps its slot until destroyed.
      closed = true;
      try {
        s.destroy();
      } catch {
        /* the slot may already be gone */
      }
      throw e;
    }
    const sock: Socket = {
      write: (bytes) => {
        s.write(bytes);
      },
      destroy: () => {
        if (closed) return;
        closed = true;
        try {
          s.destroy();
        } catch {
          /* destroying a reset socket can throw; it is gone either way */
        }
      },
    };
    return sock;
  },
};
