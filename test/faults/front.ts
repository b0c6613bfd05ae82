// Connection faults a well-behaved server never produces, scripted per
// connection attempt. A raw node:net "front" on 127.0.0.1 sits before the
// local service; the socket port in front of it decides each attempt:
//
//   pass              proxied to the service untouched
//   reset-mid-reply   the start of a 200 reply, then a TCP reset (not carried out)
//   close-unanswered  the request read, then the connection closed (not carried out)
//   hang              the request read, then nothing, ever (not carried out)
//   stall-mid-body    headers and part of the body, then nothing (not carried out)
//   garbage           a reply that is not HTTP (not carried out)
//   commit-then-reset proxied, the service stores it, then the reply is lost to a reset
//   refuse            connect to a port nobody listens on (the kernel refuses)
//   silent            Kaluma's view of a refused or reset connection: no event at all
import { connect as netConnect, createServer } from 'node:net';
import type { AddressInfo, Server, Socket as NetSocket } from 'node:net';
import type { Socket, SocketFactory } from '../../src/ports/ports';

export type Fault =
  | 'pass' | 'reset-mid-reply' | 'close-unanswered' | 'hang' | 'stall-mid-body' | 'garbage' | 'commit-then-reset' | 'refuse' | 'silent';

export interface Front {
  port: number;
  /** Factory to hand the agent: applies the script, then passes. */
  sockets: SocketFactory;
  /** Faults applied so far, in order. */
  applied: Fault[];
  /**
   * True while the current attempt is one the server side holds and will
   * never answer (hang and stall once the request arrived, silent at once),
   * until the client gives up on it.
   */
  stuck(): boolean;
  close(): Promise<void>;
}

/** Calls back once a whole request (head and Content-Length body) has arrived. */
function onRequest(s: NetSocket, cb: (raw: Buffer) => void): void {
  let buf = Buffer.alloc(0);
  let done = false;
  s.on('data', (d: Buffer) => {
    if (done) return;
    buf = Buffer.concat([buf, d]);
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const m = /\r\ncontent-length: *(\d+)/i.exec(buf.subarray(0, end).toString('latin1'));
    if (buf.length < end + 4 + (m ? Number(m[1]) : 0)) return;
    done = true;
    cb(buf);
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as AddressInfo).port;
}

/** A port that refuses: bound once, then closed. */
async function deadPort(): Promise<number> {
  const s = createServer();
  const port = await listen(s);
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

interface Try {
  fault: Fault;
  /** The server side holds the request and will never answer it. */
  held: boolean;
  /** The client gave up on it (destroyed its socket). */
  over: boolean;
}

export async function startFront(o: { upstreamPort: number; script: Fault[]; real: SocketFactory }): Promise<Front> {
  const pending: Try[] = [];
  const applied: Fault[] = [];
  const open = new Set<NetSocket>();
  let current: Try | undefined;

  const server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => undefined);
    const t = pending.shift() ?? { fault: 'pass', held: false, over: false };
    const fault = t.fault;
    const hold = (): void => {
      t.held = true;
    };
    if (fault === 'hang') return onRequest(client, hold);
    if (fault === 'pass') {
      const up = netConnect({ host: '127.0.0.1', port: o.upstreamPort });
      open.add(up);
      up.on('close', () => {
        open.delete(up);
        client.destroy();
      });
      up.on('error', () => undefined);
      client.on('close', () => up.destroy());
      client.pipe(up);
      up.pipe(client);
      return;
    }
    onRequest(client, (raw) => {
      if (fault === 'close-unanswered') client.destroy();
      else if (fault === 'reset-mid-reply') client.write('HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nJSON', () => client.resetAndDestroy());
      else if (fault === 'stall-mid-body') {
        client.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 40\r\n\r\nValue up');
        hold();
      } else if (fault === 'garbage') client.end('SSH-2.0-not-http\r\n\r\n');
      else if (fault === 'commit-then-reset') {
        const up = netConnect({ host: '127.0.0.1', port: o.upstreamPort });
        open.add(up);
        up.on('error', () => undefined);
        up.on('close', () => open.delete(up));
        up.write(raw);
        // The first bytes of the reply mean the service has stored the write.
        up.once('data', () => {
          up.destroy();
          client.resetAndDestroy();
        });
      }
    });
  });
  const port = await listen(server);
  const refusing = await deadPort();

  const sockets: SocketFactory = {
    connect(host, p, h): Socket {
      const fault = o.script[applied.length] ?? 'pass';
      applied.push(fault);
      const t: Try = { fault, held: fault === 'silent', over: false };
      current = t;
      if (fault === 'silent') return { write: () => undefined, release: () => void (t.over = true), destroy: () => void (t.over = true) };
      if (fault !== 'refuse') pending.push(t);
      const s = o.real.connect(host, fault === 'refuse' ? refusing : p, h);
      return {
        write: (b) => s.write(b),
        release: () => {
          t.over = true;
          s.release();
        },
        destroy: () => {
          t.over = true;
          s.destroy();
        },
      };
    },
    abandoned: () => 0,
  };

  return {
    port,
    sockets,
    applied,
    stuck: () => current !== undefined && current.held && !current.over,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
