// The service must answer bad input with a proper status and keep running.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { RunningService } from '../../host/service/server';
import { call, provision, rawExchange, serviceHarness } from './helpers';

const h = serviceHarness();
let svc: RunningService;

beforeEach(async () => {
  svc = await h.start({ dataDir: h.dir(), maxBodyBytes: 2048 });
});
afterEach(() => h.cleanup());

function lcg(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s % n;
  };
}

describe('bad input', () => {
  it('answers random paths with a 4xx and stays up', async () => {
    const d = await provision(svc.port, 'JSON');
    const rnd = lcg(7);
    const pieces = ['api', 'showdevicejson', 'updatedevicevalue', 'updatedevicejson', 'generateapikey', 'createuserdevice', d.key, String(d.id), String(d.pin), '%', '%2F', '%C3%A9', '%FF', '..', '', 'x', '%00', '9999999999', '-1'];
    for (let i = 0; i < 300; i++) {
      const n = 1 + rnd(6);
      const segs: string[] = [];
      for (let j = 0; j < n; j++) segs.push(pieces[rnd(pieces.length)] as string);
      const target = '/' + segs.join('/');
      const method = rnd(3) === 0 ? 'POST' : 'GET';
      const r = await call(svc.port, method, target, method === 'POST' ? '{"a":1}' : undefined);
      expect(r.status, `${method} ${target}`).toBeGreaterThanOrEqual(200);
      expect(r.status, `${method} ${target}`).toBeLessThan(500);
      expect(r.headers['content-length']).toBe(String(Buffer.byteLength(r.body)));
    }
    expect((await call(svc.port, 'GET', `/api/showdevicejson/${d.key}/${d.id}/${d.pin}`)).status).toBe(200);
  });

  it('answers random bodies with 200 or 400 only', async () => {
    const d = await provision(svc.port, 'XML');
    const j = await provision(svc.port, 'JSON');
    const rnd = lcg(99);
    const alphabet = ['<', '>', '/', 'r', '=', '"', '&', ';', '{', '}', '[', ']', ':', ',', '1', ' ', '\u00e9', '\u0000', '\ud83d\ude00'];
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) {
      let body = '';
      const len = rnd(40);
      for (let k = 0; k < len; k++) body += alphabet[rnd(alphabet.length)];
      const xml = rnd(2) === 0;
      const r = xml
        ? await call(svc.port, 'POST', `/api/updatedevicexml/${d.key}/${d.id}/${d.pin}`, body, 'application/xml')
        : await call(svc.port, 'POST', `/api/updatedevicejson/${j.key}/${j.id}/${j.pin}`, body);
      expect([200, 400], JSON.stringify(body)).toContain(r.status);
      seen.add(r.status);
    }
    expect(seen.has(400)).toBe(true);
  });

  it('answers garbage on the wire with 400 and Content-Length', async () => {
    for (const junk of ['HELLO\r\n\r\n', 'GET\r\n\r\n', 'GET / HTTP/9.9\r\n\r\n', 'GET / HTTP/1.1\r\nBad Header\r\n\r\n']) {
      const r = await rawExchange(svc.port, junk);
      if (r === 'dropped') continue; // the parser may also just close: acceptable, nothing is served
      expect(r.status, JSON.stringify(junk)).toBe(400);
      expect(r.headers['content-length']).toBe(String(Buffer.byteLength(r.body)));
      expect(r.headers.date).toBeDefined();
    }
    expect((await call(svc.port, 'GET', '/dashboard/state')).status).toBe(200);
  });

  it('serves an HTTP/1.1 request without Host (never a chunked refusal)', async () => {
    const r = await rawExchange(svc.port, 'GET /nope HTTP/1.1\r\n\r\n');
    if (r === 'dropped') throw new Error('dropped');
    expect(r.status).toBe(404);
    expect(r.headers['transfer-encoding']).toBeUndefined();
    expect(r.body).toBe('not found');
  });

  it('answers an oversized request head with 431', async () => {
    const r = await rawExchange(svc.port, `GET /api/showdevicevalue/${'a'.repeat(20000)}/1/2 HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(r === 'dropped' ? 'dropped' : r.status).toBe(431);
  });
});
