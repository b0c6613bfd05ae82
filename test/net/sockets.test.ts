import { createServer, type AddressInfo, type Server, type Socket as NetSocket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeSockets } from '../../host/ports/sockets';

let server: Server | undefined;
const accepted: NetSocket[] = [];

afterEach(async () => {
  for (const s of accepted) s.destroy();
  accepted.length = 0;
  if (server) await new Promise<void>((ok) => server!.close(() => ok()));
  server = undefined;
});

async function listen(onSocket: (s: NetSocket) => void): Promise<number> {
  server = createServer((s) => {
    accepted.push(s);
    s.on('error', () => {});
    onSocket(s);
  });
  await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
  return (server.address() as AddressInfo).port;
}

function record() {
  const events: string[] = [];
  const data: Uint8Array[] = [];
  let closed!: () => void;
  const whenClosed = new Promise<void>((ok) => (closed = ok));
  return {
    events,
    data,
    whenClosed,
    handlers: {
      onConnect: () => events.push('connect'),
      onData: (b: Uint8Array) => {
        events.push('data');
        data.push(b);
      },
      onClose: () => {
        events.push('close');
        closed();
      },
    },
  };
}

describe('Node sockets', () => {
  it('connects, echoes bytes as plain Uint8Arrays and reports the close once', async () => {
    const port = await listen((s) => s.on('data', (d) => s.end(d)));
    const r = record();
    const sock = createNodeSockets().connect('127.0.0.1', port, r.handlers);
    await new Promise<void>((ok) => setTimeout(ok, 0));
    sock.write(new Uint8Array([0, 1, 2, 255]));
    await r.whenClosed;
    expect(r.events[0]).toBe('connect');
    expect(r.events.at(-1)).toBe('close');
    expect(r.events.filter((e) => e === 'close')).toHaveLength(1);
    expect(Buffer.concat(r.data)).toEqual(Buffer.from([0, 1, 2, 255]));
    for (const d of r.data) expect(Object.getPrototypeOf(d)).toBe(Uint8Array.prototype);
  });

  it('writes an ASCII string as its own bytes, one a character, and refuses a string with anything else', async () => {
    const port = await listen((s) => s.on('data', (d) => s.end(d)));
    const r = record();
    const sock = createNodeSockets().connect('127.0.0.1', port, r.handlers);
    await new Promise<void>((ok) => setTimeout(ok, 0));
    const ascii = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).join('');
    expect(() => sock.write('caf\u00e9')).toThrow('ASCII');
    expect(() => sock.write('\u20ac')).toThrow('ASCII');
    sock.write(ascii);
    await r.whenClosed;
    expect(Buffer.concat(r.data)).toEqual(Buffer.from(Array.from({ length: 128 }, (_, i) => i)));
  });

  it('reports a refused connection as a single close without connect', async () => {
    const port = await listen(() => {});
    await new Promise<void>((ok) => server!.close(() => ok()));
    server = undefined;
    const r = record();
    createNodeSockets().connect('127.0.0.1', port, r.handlers);
    await r.whenClosed;
    await new Promise<void>((ok) => setTimeout(ok, 20));
    expect(r.events).toEqual(['close']);
  });

  it('survives destroy twice, and a write after destroy throws instead of vanishing', async () => {
    let peerClosed!: () => void;
    const gone = new Promise<void>((ok) => (peerClosed = ok));
    const port = await listen((s) => {
      s.resume();
      s.on('close', () => peerClosed());
    });
    const r = record();
    const sock = createNodeSockets().connect('127.0.0.1', port, r.handlers);
    await new Promise<void>((ok) => setTimeout(ok, 20));
    sock.destroy();
    sock.destroy();
    expect(() => sock.write(new Uint8Array([1]))).toThrow('socket closed');
    await gone;
    expect(r.events.filter((e) => e === 'close').length).toBeLessThanOrEqual(1);
    expect(r.events[0]).toBe('connect');
  });

  it('throws synchronously when told to, like the board with Wi-Fi down', () => {
    let calls = 0;
    const sockets = createNodeSockets({ throwOnConnect: () => (calls++ === 0 ? 'WiFi is not connected.' : undefined) });
    const r = record();
    expect(() => sockets.connect('127.0.0.1', 1, r.handlers)).toThrow('WiFi is not connected.');
    expect(r.events).toEqual([]);
  });
});
