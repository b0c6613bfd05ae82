// The HTTP server's own bounds (issue 35, row 4, its server part), with real
// requests: a body announced larger than the limit is answered 413 at once,
// before a byte of it is sent; a client that sends its head, or its body, a
// byte at a time, or nothing at all, has its connection closed.

import * as net from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import type { RunningService } from '../../host/service/server';
import { call, parseResponse, provision, rawExchange, serviceHarness } from './helpers';
import type { RawResponse } from './helpers';

const h = serviceHarness();
afterEach(() => h.cleanup());

/** Sends `head` only, and resolves with the answer: the body announced is never sent. */
async function headOnly(svc: RunningService, head: string): Promise<RawResponse> {
  const r = await rawExchange(svc.port, head);
  if (r === 'dropped') throw new Error('dropped');
  return r;
}

describe('a body announced larger than the limit', () => {
  it('gets 413 at once on the API, before it is sent, and nothing is stored', async () => {
    const svc = await h.start({ dataDir: h.dir(), maxBodyBytes: 1000 });
    const d = await provision(svc.port, 'JSON');
    const r = await headOnly(svc, `POST /api/updatedevicejson/${d.key}/${d.id}/${d.pin} HTTP/1.1\r\nHost: 127.0.0.1:${svc.port}\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n`);
    expect(r.status).toBe(413);
    expect(r.body).toBe('body too large');
    expect(r.headers.connection).toBe('close');
    expect((await call(svc.port, 'GET', `/api/showdevicejson/${d.key}/${d.id}/${d.pin}`)).body).toBe('{}');
  });

  it("gets 413 at once on the dashboard's set-value", async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const r = await headOnly(svc, `POST /dashboard/set-value HTTP/1.1\r\nHost: 127.0.0.1:${svc.port}\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n`);
    expect(r.status).toBe(413);
  });

  it('is read by the client even while it keeps sending the body', async () => {
    const svc = await h.start({ dataDir: h.dir(), maxBodyBytes: 1000 });
    const d = await provision(svc.port, 'JSON');
    const answer = await new Promise<Buffer>((resolve, reject) => {
      const s = net.connect(svc.port, '127.0.0.1');
      const got: Buffer[] = [];
      s.on('data', (c: Buffer) => got.push(c));
      s.on('close', () => resolve(Buffer.concat(got)));
      s.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? undefined : reject(e)));
      s.write(`POST /api/updatedevicejson/${d.key}/${d.id}/${d.pin} HTTP/1.1\r\nHost: x\r\nContent-Length: 3000000\r\n\r\n`);
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      const pump = (): void => {
        while (sent < 3000000 && !s.destroyed) {
          sent += chunk.length;
          if (!s.write(chunk)) {
            s.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
    expect(parseResponse(answer).status).toBe(413);
  });
});

/**
 * Opens a connection, writes `first`, then one more byte of `drip` every
 * 100 ms; resolves with what came back once the server closes it, or null
 * when it is still open after `budgetMs`.
 */
function slowClient(port: number, first: string, drip: string, budgetMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let got = '';
    let i = 0;
    const iv = setInterval(() => {
      if (!s.destroyed && drip.length > 0) s.write(drip.charAt(i++ % drip.length));
    }, 100);
    const budget = setTimeout(() => {
      clearInterval(iv);
      s.destroy();
      resolve(null);
    }, budgetMs);
    s.on('data', (c: Buffer) => (got += c.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearInterval(iv);
      clearTimeout(budget);
      resolve(got);
    });
    if (first) s.write(first);
  });
}

describe('timeouts', () => {
  it('closes a connection whose head comes a byte at a time (408 when it can still be told)', async () => {
    const svc = await h.start({ dataDir: h.dir(), timeouts: { headersMs: 600, requestMs: 2000, keepAliveMs: 500 } });
    const got = await slowClient(svc.port, `GET /dashboard/state HTTP/1.1\r\nHost: 127.0.0.1:${svc.port}\r\n`, 'X-Slow: aaaaaaaaaaaaaaaaaaaa\r\n', 8000);
    expect(got).not.toBeNull();
    expect(got === '' || got?.startsWith('HTTP/1.1 408 ')).toBe(true);
  });

  it('closes a connection whose body comes a byte at a time', async () => {
    const svc = await h.start({ dataDir: h.dir(), timeouts: { headersMs: 600, requestMs: 1500, keepAliveMs: 500 } });
    const d = await provision(svc.port, 'JSON');
    const got = await slowClient(svc.port, `POST /api/updatedevicejson/${d.key}/${d.id}/${d.pin} HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n`, '{', 8000);
    expect(got).not.toBeNull();
    expect((await call(svc.port, 'GET', `/api/showdevicejson/${d.key}/${d.id}/${d.pin}`)).body).toBe('{}');
  });

  it('closes a connection that sends nothing, and an idle kept-alive one', async () => {
    const svc = await h.start({ dataDir: h.dir(), timeouts: { headersMs: 600, requestMs: 2000, keepAliveMs: 500 } });
    expect(await slowClient(svc.port, '', '', 8000)).not.toBeNull();
    const kept = await slowClient(svc.port, `GET /nope HTTP/1.1\r\nHost: x\r\n\r\n`, '', 8000);
    expect(kept).toMatch(/^HTTP\/1\.1 404 /);
  });

  it('has them by default: a head a byte at a time is cut within the default of 10 s', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const got = await slowClient(svc.port, `GET / HTTP/1.1\r\nHost: 127.0.0.1:${svc.port}\r\n`, 'X-Slow: aaaaaaaaaaaaaaaaaaaa\r\n', 20000);
    expect(got).not.toBeNull();
  }, 30000);
});
