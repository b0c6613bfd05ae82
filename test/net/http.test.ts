import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeSockets } from '../../host/ports/sockets';
import { createHttpClient } from '../../src/net/http';
import type { HttpResult } from '../../src/net/types';
import type { SocketFactory } from '../../src/ports/ports';
import { engineDecoder } from '../fakes/engine-decoder';
import { bytes, deliver, peerGone, rawServer, realTimers, tap, type RawServer, type Tap } from './helpers';

let servers: RawServer[] = [];
let httpServers: HttpServer[] = [];

afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(
    httpServers.map(
      (s) =>
        new Promise<void>((ok) => {
          s.closeAllConnections();
          s.close(() => ok());
        }),
    ),
  );
  servers = [];
  httpServers = [];
});

async function serve(respond: Parameters<typeof rawServer>[0]): Promise<RawServer> {
  const s = await rawServer(respond);
  servers.push(s);
  return s;
}

async function serveHttp(handler: Parameters<typeof createHttpServer>[1]): Promise<number> {
  const s = createHttpServer(handler);
  httpServers.push(s);
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  return (s.address() as AddressInfo).port;
}

function client(opts: { timeoutMs?: number; connectTimeoutMs?: number; maxResponseBytes?: number } = {}) {
  const t = tap(createNodeSockets());
  const timers = realTimers();
  const http = createHttpClient({ sockets: t.factory, timers, ...opts });
  return { t, timers, http };
}

const get = (port: number, path = '/') => ({ method: 'GET' as const, host: '127.0.0.1', port, path });

function response(r: HttpResult) {
  if (r.kind !== 'response') throw new Error('expected a response, got ' + JSON.stringify(r));
  return r;
}

/** Serves `wire` in the given pieces, each fully received before the next. */
async function splitServer(t: Tap, pieces: () => Uint8Array[]): Promise<RawServer> {
  return serve((sock) => deliver(sock, t, pieces()));
}

const DATE = 'Sun, 22 Nov 2026 08:05:00 GMT';

/** A server that keeps the whole request body as text (read as `encoding`), then answers empty. */
async function bodyServer(encoding: BufferEncoding): Promise<{ port: number; body: () => string }> {
  let received = '';
  const port = await serveHttp((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      received = Buffer.concat(parts).toString(encoding);
      res.end();
    });
  });
  return { port, body: () => received };
}

describe('request bytes', () => {
  it('sends only the request line and Host for a GET', async () => {
    let seen = '';
    const s = await serve((sock, req) => {
      seen = req.toString('latin1');
      sock.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    });
    const { http } = client();
    const r = response(await http.request(get(s.port, '/api/x/%C3%A9?a=1')));
    const expected = `GET /api/x/%C3%A9?a=1 HTTP/1.0\r\nHost: 127.0.0.1:${s.port}\r\n\r\n`;
    expect(seen).toBe(expected);
    expect(r.bytesSent).toBe(expected.length);
  });

  it('sends a non-ASCII body as UTF-8 with its byte count', async () => {
    let got: { body: Buffer; length?: string; type?: string; method?: string } | undefined;
    const port = await serveHttp((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        got = {
          body: Buffer.concat(parts),
          length: req.headers['content-length'],
          type: req.headers['content-type'],
          method: req.method,
        };
        res.end('stored');
      });
    });
    const { http, timers } = client();
    const r = response(
      await http.request({ ...get(port, '/api/j'), method: 'POST', body: 'é€😀', contentType: 'application/json' }),
    );
    expect(r.status).toBe(200);
    expect(r.body).toBe('stored');
    expect(got).toEqual({
      body: Buffer.from([0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80]),
      length: '9',
      type: 'application/json',
      method: 'POST',
    });
    expect(timers.pending()).toBe(0);
  });

  it('hands a large request to the socket port as its head and its body: cutting them into driver writes is the port\'s job', async () => {
    const body = 'x'.repeat(5000) + 'é';
    const { port, body: got } = await bodyServer('utf8');
    const { http, t } = client();
    const r = response(await http.request({ ...get(port, '/p'), method: 'POST', body }));
    expect(got()).toBe(body);
    const head = `POST /p HTTP/1.0\r\nHost: 127.0.0.1:${port}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5002\r\n\r\n`;
    const total = head.length + 5002;
    expect(r.bytesSent).toBe(total);
    expect(t.writes).toEqual([head.length, 5002]);
    // The head is ASCII: a string; the body is not: its UTF-8 bytes.
    expect(t.kinds).toEqual(['string', 'bytes']);
  });

  it('hands a large ASCII request to the socket port as two strings, head and body, never joined, and the server gets every byte', async () => {
    const body = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ seq: i, temp: 21.5, unit: 'C' })));
    const { port, body: got } = await bodyServer('latin1');
    const { http, t } = client();
    const r = response(await http.request({ ...get(port, '/p'), method: 'POST', body, contentType: 'application/json' }));
    expect(got()).toBe(body);
    const head = `POST /p HTTP/1.0\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    expect(r.bytesSent).toBe(head.length + body.length);
    expect(t.writes).toEqual([head.length, body.length]);
    expect(t.kinds).toEqual(['string', 'string']);
  });

  it('never half-closes, so a slow server still answers', async () => {
    let finBeforeAnswer: boolean | undefined;
    const s = await serve((sock) => {
      setTimeout(() => {
        finBeforeAnswer = sock.readableEnded;
        sock.end('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nlate');
      }, 100);
    });
    const { http } = client();
    const r = response(await http.request(get(s.port)));
    expect(r.body).toBe('late');
    expect(finBeforeAnswer).toBe(false);
  });

  it('sends a lone surrogate in the body as U+FFFD and counts its three bytes', async () => {
    let got: { body: Buffer; length?: string } | undefined;
    const port = await serveHttp((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        got = { body: Buffer.concat(parts), length: req.headers['content-length'] };
        res.end();
      });
    });
    const { http } = client();
    response(await http.request({ ...get(port, '/p'), method: 'POST', body: 'a\ud800b\udc00' }));
    expect(got).toEqual({ body: Buffer.from([0x61, 0xef, 0xbf, 0xbd, 0x62, 0xef, 0xbf, 0xbd]), length: '8' });
  });

  it('gets the answer of a node:http server that waits 100 ms', async () => {
    const port = await serveHttp((_req, res) => {
      setTimeout(() => res.end('slow but fine'), 100);
    });
    const { http } = client();
    const r = response(await http.request(get(port, '/slow')));
    expect(r.body).toBe('slow but fine');
  });
});

describe('response framing under any segmentation', () => {
  const clHead = `HTTP/1.1 200 OK\r\nDate: ${DATE}\r\nContent-Type: text/plain\r\nContent-Length: `;
  const clBody = 'température 21.5°C €😀';
  const clWire = bytes(clHead + bytes(clBody).length + '\r\n\r\n' + clBody);

  it('parses a Content-Length response split at every byte boundary', async () => {
    const { http, t } = client();
    let at = 0;
    const s = await splitServer(t, () => [clWire.subarray(0, at), clWire.subarray(at)]);
    for (at = 1; at < clWire.length; at++) {
      t.segments.length = 0;
      const r = response(await http.request(get(s.port)));
      expect([at, r.status, r.reason, r.headers, r.body]).toEqual([
        at,
        200,
        'OK',
        { date: DATE, 'content-type': 'text/plain', 'content-length': String(bytes(clBody).length) },
        clBody,
      ]);
      expect(t.segments).toEqual([at, clWire.length - at]);
    }
  });

  it('parses a Content-Length response arriving one byte at a time', async () => {
    const { http, t } = client();
    const s = await splitServer(t, () => Array.from(clWire, (_, i) => clWire.subarray(i, i + 1)));
    const r = response(await http.request(get(s.port)));
    expect(r.body).toBe(clBody);
    expect(r.headers.date).toBe(DATE);
    expect(t.segments.length).toBe(clWire.length);
  });

  const chunkedWire = bytes(
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nDate: ' + DATE + '\r\n\r\n' +
      '4;name=value\r\nWiki\r\n' +
      '6\r\npédia\r\n' +
      'E\r\n in\r\n\r\nchunks.\r\n' +
      '0\r\nX-Trailer: yes\r\n\r\n',
  );
  const chunkedBody = 'Wikipédia in\r\n\r\nchunks.';

  it('de-chunks a response split at every byte boundary', async () => {
    const { http, t } = client();
    let at = 0;
    const s = await splitServer(t, () => [chunkedWire.subarray(0, at), chunkedWire.subarray(at)]);
    for (at = 1; at < chunkedWire.length; at++) {
      t.segments.length = 0;
      const r = response(await http.request(get(s.port)));
      expect([at, r.status, r.headers, r.body]).toEqual([
        at,
        200,
        { 'transfer-encoding': 'chunked', date: DATE },
        chunkedBody,
      ]);
      expect(t.segments).toEqual([at, chunkedWire.length - at]);
    }
  });

  it('de-chunks a response arriving one byte at a time', async () => {
    const { http, t } = client();
    const s = await splitServer(t, () => Array.from(chunkedWire, (_, i) => chunkedWire.subarray(i, i + 1)));
    const r = response(await http.request(get(s.port)));
    expect(r.body).toBe(chunkedBody);
    expect(t.segments.length).toBe(chunkedWire.length);
  });

  it('reads a body without length until the server closes, split at every boundary', async () => {
    const wire = bytes('HTTP/1.0 200 OK\r\nServer: x\r\n\r\nbody until close: ñ');
    const { http, t } = client();
    let at = 0;
    const s = await serve(async (sock) => {
      await deliver(sock, t, [wire.subarray(0, at), wire.subarray(at)]);
      sock.end();
    });
    for (at = 1; at < wire.length; at++) {
      const r = response(await http.request(get(s.port)));
      // Server is not a header the agent reads: skipped unread.
      expect([at, r.status, r.headers, r.body]).toEqual([at, 200, {}, 'body until close: ñ']);
    }
  });

  it('keeps earlier bytes while its buffer grows for a larger body', async () => {
    const body = Array.from({ length: 600 }, (_, i) => String(i % 10).repeat(9) + '\n').join('');
    const wire = bytes(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    const { http, t } = client();
    const pieces = Array.from({ length: Math.ceil(wire.length / 700) }, (_, i) => wire.subarray(i * 700, i * 700 + 700));
    const s = await splitServer(t, () => pieces);
    const r = response(await http.request(get(s.port)));
    expect(r.body).toBe(body);
    expect(t.segments.length).toBe(pieces.length);
  });

  it('completes on Content-Length without waiting for the server to close, and leaves the closing to the server', async () => {
    const s = await serve((sock) => {
      sock.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello');
    });
    const { http, t, timers } = client({ timeoutMs: 5000 });
    const r = response(await http.request(get(s.port)));
    expect(r.body).toBe('hello');
    // Closing first would let the server's late FIN close the next socket on the board.
    expect([t.released, t.destroyed]).toEqual([1, 0]);
    expect(timers.pending()).toBe(0);
  });

  it('destroys the socket at once when the exchange fails', async () => {
    const s = await serve((sock) => {
      sock.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel');
    });
    const { http, t } = client({ timeoutMs: 300 });
    const r = await http.request(get(s.port));
    expect(r).toMatchObject({ kind: 'failure', failure: 'timeout' });
    expect([t.released, t.destroyed]).toEqual([0, 1]);
  });

  it('turns a reply that is not UTF-8 into an encoding failure, never handing it to the decoder, and counts it', async () => {
    const seen = engineDecoder();
    const replies = ['HTTP/1.1 200 OK\r\nDate: \xe0\xf0A\r\nContent-Length: 2\r\n\r\nok', 'HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nab\xf0\x80'];
    const closing: string[] = [];
    for (const wire of replies) {
      const s = await serve((sock) => void sock.write(Buffer.from(wire, 'latin1')));
      const { http, t } = client();
      const r = await http.request(get(s.port));
      expect(r).toMatchObject({ kind: 'failure', failure: 'encoding' });
      expect(http.stats().failures).toEqual({ encoding: 1 });
      closing.push(t.released ? 'released' : t.destroyed ? 'destroyed' : 'open');
    }
    // A bad head stops the parse (we close); a whole reply with a bad body is left for the server to close.
    expect(closing).toEqual(['destroyed', 'released']);
    expect(seen.every((h) => !h.includes('e0 f0') && !h.includes('f0 80'))).toBe(true);
  });
});

describe('statuses', () => {
  async function answer(wire: string, o: { maxResponseBytes?: number } = {}) {
    const s = await serve((sock) => {
      sock.write(Buffer.from(wire, 'latin1'));
    });
    const { http } = client({ timeoutMs: 2000, ...o });
    return http.request(get(s.port));
  }

  it('accepts a status line without reason phrase', async () => {
    const r = response(await answer('HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok'));
    expect([r.status, r.reason, r.body]).toEqual([200, '', 'ok']);
  });

  it('keeps a multi-word reason phrase', async () => {
    const r = response(await answer('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'));
    expect([r.status, r.reason, r.body]).toEqual([404, 'Not Found', '']);
  });

  it('skips 100 Continue and an early-hints response before the final one', async () => {
    const r = response(
      await answer(
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n' +
          'HTTP/1.1 201 Created\r\nContent-Length: 3\r\n\r\nnew',
      ),
    );
    expect([r.status, r.reason, r.headers, r.body]).toEqual([201, 'Created', { 'content-length': '3' }, 'new']);
  });

  it('returns redirects, client and server errors as responses', async () => {
    const r301 = response(await answer('HTTP/1.1 301 Moved Permanently\r\nLocation: http://127.0.0.1:9/x\r\nContent-Length: 0\r\n\r\n'));
    expect([r301.status, r301.headers.location]).toEqual([301, 'http://127.0.0.1:9/x']);
    const r403 = response(await answer('HTTP/1.1 403 Forbidden\r\nContent-Length: 6\r\n\r\ndenied'));
    expect([r403.status, r403.body]).toEqual([403, 'denied']);
    const r503 = response(await answer('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\nContent-Length: 4\r\n\r\nbusy'));
    expect([r503.status, r503.reason, r503.headers['retry-after'], r503.body]).toEqual([503, 'Service Unavailable', '7', 'busy']);
  });

  it('ends 204 and 304 at the headers while the connection stays open', async () => {
    const r204 = response(await answer('HTTP/1.1 204 No Content\r\n\r\n'));
    expect([r204.status, r204.body]).toEqual([204, '']);
    const r304 = response(await answer('HTTP/1.1 304 Not Modified\r\nContent-Length: 12\r\n\r\n'));
    expect([r304.status, r304.body]).toEqual([304, '']);
  });

  it('joins repeated headers it keeps, and keeps only the headers the agent reads', async () => {
    const r = response(await answer('HTTP/1.1 200 OK\r\nVia: a\r\nRetry-After: 5\r\nRETRY-AFTER: 7\r\nX-Retry-After: 9\r\nContent-Length: 0\r\n\r\n'));
    expect(r.headers).toEqual({ 'retry-after': '5, 7', 'content-length': '0' });
  });

  it('costs no string for a header it does not keep, however long or many, even when it is not UTF-8', async () => {
    const seen = engineDecoder();
    const many = Array.from({ length: 300 }, (_, i) => `Via: 1.1 proxy-${i}\r\n`).join('');
    const r = response(await answer(`HTTP/1.1 200 OK\r\nX-Pad: ${'a'.repeat(3000)}\r\nX-Bin: \xe0\xf0A\r\n${many}Content-Length: 2\r\n\r\nok`, { maxResponseBytes: 16384 }));
    expect([r.status, r.headers, r.body]).toEqual([200, { 'content-length': '2' }, 'ok']);
    // Decoded: the status line, one header value and the body; nothing else.
    expect(seen.length).toBe(3);
  });

  it('reports a garbage status line as a protocol failure', async () => {
    const r = await answer('SSH-2.0-OpenSSH\r\n\r\n');
    expect(r).toMatchObject({ kind: 'failure', failure: 'protocol' });
  });

  it('reports a malformed chunk size as a protocol failure', async () => {
    const r = await answer('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
    expect(r).toMatchObject({ kind: 'failure', failure: 'protocol' });
  });
});

describe('reading in place', () => {
  /** A socket port that hands every exchange the same reply bytes, in the pieces given. */
  function replaying(pieces: Uint8Array[]): SocketFactory {
    return {
      connect(_host, _port, h) {
        setTimeout(() => {
          h.onConnect();
          for (const p of pieces) h.onData(p);
        }, 1);
        return { write: () => undefined, release: () => undefined, destroy: () => undefined };
      },
      abandoned: () => 0,
    };
  }

  it('never writes into the bytes the socket hands it, even while it de-chunks them', async () => {
    const wire = bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nValue\r\n8\r\n updated\r\n0\r\n\r\n');
    const copy = wire.slice();
    for (const pieces of [[wire], [wire.subarray(0, 30), wire.subarray(30)]]) {
      const http = createHttpClient({ sockets: replaying(pieces), timers: realTimers() });
      for (let i = 0; i < 2; i++) expect(response(await http.request(get(80))).body).toBe('Value updated');
      expect(wire).toEqual(copy);
    }
  });

  it('reads a reply whose head and body come in separate segments', async () => {
    const http = createHttpClient({ sockets: replaying([bytes('HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n'), bytes('Value updated')]), timers: realTimers() });
    const r = response(await http.request(get(80)));
    expect([r.headers, r.body]).toEqual([{ 'content-length': '13' }, 'Value updated']);
  });
});

describe('failures', () => {
  it('keeps the whole deadline for a connection that came before the connect deadline', async () => {
    const s = await serve(() => {});
    const { http, timers } = client({ connectTimeoutMs: 100, timeoutMs: 400 });
    const t0 = Date.now();
    expect(await http.request(get(s.port))).toMatchObject({ kind: 'failure', failure: 'timeout', reason: 'response' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(390);
    expect(timers.pending()).toBe(0);
  });

  it('times out on a server that accepts and never answers, and closes the socket', async () => {
    const s = await serve(() => {});
    const { http, timers } = client({ timeoutMs: 300 });
    const r = await http.request(get(s.port));
    expect(r).toEqual({ kind: 'failure', failure: 'timeout', reason: 'response', bytesSent: expect.any(Number) as number });
    expect(r.bytesSent).toBe(`GET / HTTP/1.0\r\nHost: 127.0.0.1:${s.port}\r\n\r\n`.length);
    expect(timers.pending()).toBe(0);
    await peerGone(s.sockets[0]!);
    expect(s.sockets.length).toBe(1);
  });

  it('reports a reset in the middle of a Content-Length body', async () => {
    const s = await serve((sock) => {
      sock.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial', () => setTimeout(() => sock.resetAndDestroy(), 20));
    });
    const { http, timers } = client({ timeoutMs: 2000 });
    const r = await http.request(get(s.port));
    expect(r).toMatchObject({ kind: 'failure', failure: 'reset' });
    expect(timers.pending()).toBe(0);
  });

  it('reports a clean close in the middle of a body or a chunk as a reset', async () => {
    for (const wire of [
      'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nshort',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nwhole\r\n',
      'HTTP/1.1 200 OK\r\nContent-Le',
    ]) {
      const s = await serve((sock) => {
        sock.end(wire);
      });
      const { http } = client({ timeoutMs: 2000 });
      expect([wire, await http.request(get(s.port))]).toEqual([
        wire,
        expect.objectContaining({ kind: 'failure', failure: 'reset' }),
      ]);
    }
  });

  it('reports a close right after connect, before any byte, as a reset', async () => {
    const s = await serve((sock) => {
      sock.end();
    });
    const { http } = client({ timeoutMs: 2000 });
    expect(await http.request(get(s.port))).toMatchObject({ kind: 'failure', failure: 'reset' });
  });

  it('refuses a declared body over the bound without reading it', async () => {
    const s = await serve((sock) => {
      sock.write('HTTP/1.1 200 OK\r\nContent-Length: 10000\r\n\r\n');
    });
    const { http, t } = client({ timeoutMs: 2000 });
    expect(await http.request(get(s.port))).toMatchObject({ kind: 'failure', failure: 'too-large' });
    expect(t.destroyed).toBe(1);
  });

  it('stops a streamed body at the bound and closes the socket', async () => {
    const s = await serve((sock) => {
      sock.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = '400\r\n' + 'y'.repeat(0x400) + '\r\n';
      let n = 0;
      const more = (): void => {
        if (sock.destroyed || n++ > 100) return;
        sock.write(chunk, () => setTimeout(more, 1));
      };
      more();
    });
    const { http, timers } = client({ timeoutMs: 5000, maxResponseBytes: 3000 });
    const r = await http.request(get(s.port));
    expect(r).toMatchObject({ kind: 'failure', failure: 'too-large' });
    expect(timers.pending()).toBe(0);
    await peerGone(s.sockets[0]!);
    expect(s.sockets.length).toBe(1);
  });

  it('accepts a response of exactly the bound', async () => {
    const head = 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n';
    const s = await serve((sock) => {
      sock.write(head + 'z'.repeat(100));
    });
    const { http } = client({ maxResponseBytes: head.length + 100 });
    expect(response(await http.request(get(s.port))).body).toBe('z'.repeat(100));
  });

  it('fails on a refused port instead of hanging', async () => {
    const probe = createServer();
    await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((ok) => probe.close(() => ok()));
    const { http, timers } = client({ timeoutMs: 10000, connectTimeoutMs: 10000 });
    const r = await http.request(get(port));
    expect(r).toMatchObject({ kind: 'failure', failure: 'connect', bytesSent: 0 });
    expect(timers.pending()).toBe(0);
  });

  it('turns a synchronous connect throw into a connect failure', async () => {
    const timers = realTimers();
    const http = createHttpClient({
      sockets: createNodeSockets({ throwOnConnect: () => 'WiFi is not connected.' }),
      timers,
    });
    const r = await http.request(get(1));
    expect(r).toEqual({ kind: 'failure', failure: 'connect', reason: 'WiFi is not connected.', bytesSent: 0 });
    expect(timers.pending()).toBe(0);
  });
});
