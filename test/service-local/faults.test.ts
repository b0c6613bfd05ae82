import { afterEach, describe, expect, it } from 'vitest';

import { call, provision, rawExchange, serviceHarness } from './helpers';

const h = serviceHarness();
afterEach(() => h.cleanup());

async function provisionedDir(format: 'Value' | 'JSON') {
  const dir = h.dir();
  const clean = await h.start({ dataDir: dir });
  const d = await provision(clean.port, format);
  await clean.close();
  return { dir, ...d };
}

describe('fault injection', () => {
  it('with errorShare 1 answers every write 503 or 429 with Retry-After: 1 and stores nothing', async () => {
    const d = await provisionedDir('Value');
    const svc = await h.start({ dataDir: d.dir, faults: { errorShare: 1 } });
    const statuses = new Set<number>();
    for (let i = 0; i < 40; i++) {
      const r = await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/${i}`);
      expect([503, 429]).toContain(r.status);
      expect(r.headers['retry-after']).toBe('1');
      expect(r.headers['content-length']).toBe(String(Buffer.byteLength(r.body)));
      statuses.add(r.status);
    }
    // both kinds occur (each is picked with even odds: 2^-39 chance of failing by luck)
    expect([...statuses].sort()).toEqual([429, 503]);
    await svc.close();
    const again = await h.start({ dataDir: d.dir });
    expect((await call(again.port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}`)).body).toBe('');
  });

  it('with errorShare 1 also refuses POST writes', async () => {
    const d = await provisionedDir('JSON');
    const svc = await h.start({ dataDir: d.dir, faults: { errorShare: 1 } });
    const r = await call(svc.port, 'POST', `/api/updatedevicejson/${d.key}/${d.id}/${d.pin}`, '{"a":1}');
    expect([503, 429]).toContain(r.status);
  });

  it('with dropShare 1 closes every connection without an answer', async () => {
    const d = await provisionedDir('Value');
    const svc = await h.start({ dataDir: d.dir, faults: { dropShare: 1 } });
    for (let i = 0; i < 5; i++) {
      const r = await rawExchange(
        svc.port,
        `GET /api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/${i} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      );
      expect(r).toBe('dropped');
    }
  });

  it('applies faults to the API only, not the dashboard', async () => {
    const svc = await h.start({ dataDir: h.dir(), faults: { errorShare: 1, dropShare: 1 } });
    expect((await call(svc.port, 'GET', '/dashboard/state')).status).toBe(200);
    expect((await call(svc.port, 'GET', '/')).status).toBe(200);
  });

  it('with faults off (errorShare 0, dropShare 0) serves normally', async () => {
    const d = await provisionedDir('Value');
    const svc = await h.start({ dataDir: d.dir, faults: { errorShare: 0, dropShare: 0, latencyMs: 1 } });
    expect((await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/4`)).status).toBe(200);
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}`)).body).toBe('4');
  });
});
