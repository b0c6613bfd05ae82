import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { RunningService, WriteEvent } from '../../host/service/server';
import { call, enc, provision, rawExchange, serviceHarness } from './helpers';

const h = serviceHarness();
let svc: RunningService;

beforeEach(async () => {
  svc = await h.start({ dataDir: h.dir() });
});
afterEach(() => h.cleanup());

describe('account operations', () => {
  it('generates a 32-hex-digit key as JSON and returns the same key for the same credentials', async () => {
    const a = await call(svc.port, 'GET', '/api/generateapikey/me%40example.com/pw1');
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
    const key = (JSON.parse(a.body) as { APIKey: string }).APIKey;
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    const b = await call(svc.port, 'GET', '/api/generateapikey/ME@example.com/pw1/');
    expect(JSON.parse(b.body)).toEqual({ APIKey: key });
  });

  it('gives different accounts different keys', async () => {
    const a = JSON.parse((await call(svc.port, 'GET', '/api/generateapikey/a@example.com/x')).body) as { APIKey: string };
    const b = JSON.parse((await call(svc.port, 'GET', '/api/generateapikey/b@example.com/x')).body) as { APIKey: string };
    expect(a.APIKey).not.toBe(b.APIKey);
  });

  it('refuses a known e-mail with another password with 401', async () => {
    await call(svc.port, 'GET', '/api/generateapikey/a@example.com/right');
    const r = await call(svc.port, 'GET', '/api/generateapikey/a@example.com/wrong');
    expect(r.status).toBe(401);
    expect(r.body).toBe('invalid credentials');
  });

  it('refuses an e-mail without @ with 400', async () => {
    const r = await call(svc.port, 'GET', '/api/generateapikey/nobody/pw');
    expect(r.status).toBe(400);
  });

  it('creates devices with incrementing ids and 4-6 digit pins', async () => {
    const k = JSON.parse((await call(svc.port, 'GET', '/api/generateapikey/a@example.com/x')).body) as { APIKey: string };
    const ids: number[] = [];
    for (const f of ['Value', 'json', 'XML']) {
      const r = await call(svc.port, 'GET', `/api/createuserdevice/${k.APIKey}/Greenhouse%20${f}/None/${f}`);
      expect(r.status).toBe(200);
      const d = JSON.parse(r.body) as Record<string, unknown>;
      ids.push(d.DeviceID as number);
      expect(String(d.DevicePIN)).toMatch(/^[1-9][0-9]{3,5}$/);
      expect(d.DeviceName).toBe(`Greenhouse ${f}`);
      expect(d.CryptoName).toBe('None');
      expect(d.DataFormat).toBe(f === 'json' ? 'JSON' : f);
    }
    expect(ids).toEqual([1, 2, 3]);
  });

  it('refuses device creation with an unknown key (401) or an unknown format (400)', async () => {
    const r1 = await call(svc.port, 'GET', '/api/createuserdevice/0123456789abcdef0123456789abcdef/n/None/Value');
    expect(r1.status).toBe(401);
    expect(r1.body).toBe('invalid API key');
    const k = JSON.parse((await call(svc.port, 'GET', '/api/generateapikey/a@example.com/x')).body) as { APIKey: string };
    const r2 = await call(svc.port, 'GET', `/api/createuserdevice/${k.APIKey}/n/None/CSV`);
    expect(r2.status).toBe(400);
    expect(r2.body).toBe('DataFormat must be one of Value, JSON, XML');
  });
});

describe('value devices', () => {
  it('stores a value and reads it back as bare text', async () => {
    const d = await provision(svc.port, 'Value');
    const empty = await call(svc.port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}`);
    expect(empty.status).toBe(200);
    expect(empty.body).toBe('');
    expect(empty.headers['content-length']).toBe('0');
    const w = await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/21.50`);
    expect(w.status).toBe(200);
    expect(w.body).toBe('Value updated');
    const r = await call(svc.port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}`);
    expect(r.body).toBe('21.50');
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('accepts a trailing slash on every path', async () => {
    const d = await provision(svc.port, 'Value');
    expect((await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/7/`)).status).toBe(200);
    const r = await call(svc.port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}/`);
    expect(r.status).toBe(200);
    expect(r.body).toBe('7');
  });

  it.each([
    ['a/b', 'a%2Fb'],
    ['100%', '100%25'],
    ['café', enc('café')],
    ['a b+c?d#e', enc('a b+c?d#e')],
  ])('percent-decodes the value %j', async (value, encoded) => {
    const d = await provision(svc.port, 'Value');
    const w = await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/${encoded}`);
    expect(w.status).toBe(200);
    const r = await call(svc.port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}`);
    expect(r.body).toBe(value);
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(value)));
  });

  it('decodes encoded e-mail, name and password segments', async () => {
    const k = await call(svc.port, 'GET', `/api/generateapikey/${enc('ré/x@example.com')}/${enc('p%w/é')}`);
    expect(k.status).toBe(200);
    const key = (JSON.parse(k.body) as { APIKey: string }).APIKey;
    const again = await call(svc.port, 'GET', `/api/generateapikey/${enc('ré/x@example.com')}/${enc('p%w/é')}`);
    expect(JSON.parse(again.body)).toEqual({ APIKey: key });
    const d = await call(svc.port, 'GET', `/api/createuserdevice/${key}/${enc('Serre 1/Nord 100%')}/None/Value`);
    expect((JSON.parse(d.body) as { DeviceName: string }).DeviceName).toBe('Serre 1/Nord 100%');
  });

  it('refuses malformed percent-encoding with 400', async () => {
    const d = await provision(svc.port, 'Value');
    for (const bad of ['%', '%zz', '%C3', '%E9']) {
      const r = await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body).toBe('malformed percent-encoding in path');
    }
    const r = await call(svc.port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}`);
    expect(r.body).toBe('');
  });

  it('emits a write event with the stored content', async () => {
    const d = await provision(svc.port, 'Value', 'e@example.com', 'pw', 'probe');
    const seen: WriteEvent[] = [];
    svc.events.on('write', (e: WriteEvent) => seen.push(e));
    await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/3.25`);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ deviceId: d.id, deviceName: 'probe', format: 'Value', content: '3.25' });
    expect(Number.isNaN(Date.parse(seen[0]?.at ?? ''))).toBe(false);
  });
  it('still answers 200 when a write listener throws', async () => {
    const d = await provision(svc.port, 'Value');
    svc.events.on('write', () => {
      throw new Error('listener bug');
    });
    expect((await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/6`)).status).toBe(200);
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}`)).body).toBe('6');
  });
});

describe('JSON devices', () => {
  it('returns {} before the first write and the stored document after', async () => {
    const d = await provision(svc.port, 'JSON');
    const empty = await call(svc.port, 'GET', `/api/showdevicejson/${d.key}/${d.id}/${d.pin}`);
    expect(empty.status).toBe(200);
    expect(empty.body).toBe('{}');
    expect(empty.headers['content-type']).toBe('application/json; charset=utf-8');
    const doc = '{"temp":21.5,"rh":40,"note":"é/%"}';
    const w = await call(svc.port, 'POST', `/api/updatedevicejson/${d.key}/${d.id}/${d.pin}`, doc);
    expect(w.status).toBe(200);
    expect(w.body).toBe('JSON updated');
    const r = await call(svc.port, 'GET', `/api/showdevicejson/${d.key}/${d.id}/${d.pin}/`);
    expect(r.body).toBe(doc);
  });

  it('accepts a JSON array (batched samples)', async () => {
    const d = await provision(svc.port, 'JSON');
    const doc = '[{"t":1,"v":2},{"t":2,"v":3}]';
    expect((await call(svc.port, 'POST', `/api/updatedevicejson/${d.key}/${d.id}/${d.pin}/`, doc)).status).toBe(200);
    expect((await call(svc.port, 'GET', `/api/showdevicejson/${d.key}/${d.id}/${d.pin}`)).body).toBe(doc);
  });

  it.each(['{"a":', '{a:1}', "{'a':1}", '', '   ', '{"a":1}}'])('refuses malformed JSON %j with 400 and keeps the old document', async (bad) => {
    const d = await provision(svc.port, 'JSON');
    await call(svc.port, 'POST', `/api/updatedevicejson/${d.key}/${d.id}/${d.pin}`, '{"ok":true}');
    const r = await call(svc.port, 'POST', `/api/updatedevicejson/${d.key}/${d.id}/${d.pin}`, bad);
    expect(r.status).toBe(400);
    expect((await call(svc.port, 'GET', `/api/showdevicejson/${d.key}/${d.id}/${d.pin}`)).body).toBe('{"ok":true}');
  });

  it('refuses a body that is not UTF-8 with 400', async () => {
    const d = await provision(svc.port, 'JSON');
    const r = await call(svc.port, 'POST', `/api/updatedevicejson/${d.key}/${d.id}/${d.pin}`, Buffer.from([0x22, 0xc3, 0x28, 0x22]));
    expect(r.status).toBe(400);
    expect(r.body).toBe('body is not valid UTF-8');
  });
});

describe('XML devices', () => {
  it('returns <data></data> before the first write and the stored XML escaped as text after', async () => {
    const d = await provision(svc.port, 'XML');
    const empty = await call(svc.port, 'GET', `/api/showdevicexml/${d.key}/${d.id}/${d.pin}`);
    expect(empty.status).toBe(200);
    expect(empty.body).toBe('<data></data>');
    expect(empty.headers['content-type']).toBe('application/xml; charset=utf-8');
    const doc = '<?xml version="1.0"?><r t="1"><temp>21.5</temp><n>a &amp; b</n></r>';
    const w = await call(svc.port, 'POST', `/api/updatedevicexml/${d.key}/${d.id}/${d.pin}`, doc, 'application/xml');
    expect(w.status).toBe(200);
    expect(w.body).toBe('XML updated');
    const r = await call(svc.port, 'GET', `/api/showdevicexml/${d.key}/${d.id}/${d.pin}`);
    expect(r.body).toBe(
      '<data>&lt;?xml version="1.0"?&gt;&lt;r t="1"&gt;&lt;temp&gt;21.5&lt;/temp&gt;&lt;n&gt;a &amp;amp; b&lt;/n&gt;&lt;/r&gt;</data>',
    );
  });

  it.each(['<a>', '<a></b>', '<a/><b/>', 'text', '<a x=1/>', '<a>&nope;</a>', '<a>1 < 2</a>'])(
    'refuses malformed XML %j with 400',
    async (bad) => {
      const d = await provision(svc.port, 'XML');
      const r = await call(svc.port, 'POST', `/api/updatedevicexml/${d.key}/${d.id}/${d.pin}`, bad, 'application/xml');
      expect(r.status).toBe(400);
      expect(r.body.startsWith('malformed XML: ')).toBe(true);
      expect((await call(svc.port, 'GET', `/api/showdevicexml/${d.key}/${d.id}/${d.pin}`)).body).toBe('<data></data>');
    },
  );
});

describe('device errors', () => {
  it('answers 401 for an unknown key on reads and writes', async () => {
    const d = await provision(svc.port, 'Value');
    const other = 'f'.repeat(32);
    for (const path of [`/api/showdevicevalue/${other}/${d.id}/${d.pin}`, `/api/updatedevicevalue/${other}/${d.id}/${d.pin}/1`]) {
      const r = await call(svc.port, 'GET', path);
      expect(r.status).toBe(401);
      expect(r.body).toBe('invalid API key');
    }
    const j = await call(svc.port, 'POST', `/api/updatedevicejson/${other}/${d.id}/${d.pin}`, '{}');
    expect(j.status).toBe(401);
  });

  it('answers 404 with one body for an unknown device, a wrong pin and a device of another account', async () => {
    const d = await provision(svc.port, 'Value', 'one@example.com');
    const e = await provision(svc.port, 'Value', 'two@example.com');
    const wrongPin = d.pin === 999999 ? 1000 : d.pin + 1;
    const cases = [
      `/api/showdevicevalue/${d.key}/99/${d.pin}`,
      `/api/showdevicevalue/${d.key}/${d.id}/${wrongPin}`,
      `/api/showdevicevalue/${d.key}/${e.id}/${e.pin}`,
      `/api/updatedevicevalue/${d.key}/${d.id}/${wrongPin}/5`,
    ];
    for (const p of cases) {
      const r = await call(svc.port, 'GET', p);
      expect(r.status, p).toBe(404);
      expect(r.body, p).toBe('device not found');
    }
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${e.key}/${e.id}/${e.pin}`)).body).toBe('');
  });

  it('answers 400 for a non-numeric DeviceID or DevicePIN', async () => {
    const d = await provision(svc.port, 'Value');
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${d.key}/x1/${d.pin}`)).status).toBe(400);
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/-5`)).status).toBe(400);
  });

  it('answers 409 when the operation format differs from the device format, and stores nothing', async () => {
    const v = await provision(svc.port, 'Value');
    const j = await provision(svc.port, 'JSON');
    const x = await provision(svc.port, 'XML');
    const attempts: [string, string, string?][] = [
      ['POST', `/api/updatedevicejson/${v.key}/${v.id}/${v.pin}`, '{"a":1}'],
      ['POST', `/api/updatedevicexml/${v.key}/${v.id}/${v.pin}`, '<a/>'],
      ['GET', `/api/updatedevicevalue/${j.key}/${j.id}/${j.pin}/1`],
      ['POST', `/api/updatedevicexml/${j.key}/${j.id}/${j.pin}`, '<a/>'],
      ['GET', `/api/updatedevicevalue/${x.key}/${x.id}/${x.pin}/1`],
      ['POST', `/api/updatedevicejson/${x.key}/${x.id}/${x.pin}`, '{}'],
      ['GET', `/api/showdevicejson/${v.key}/${v.id}/${v.pin}`],
      ['GET', `/api/showdevicevalue/${x.key}/${x.id}/${x.pin}`],
    ];
    for (const [m, p, body] of attempts) {
      const r = await call(svc.port, m, p, body);
      expect(r.status, p).toBe(409);
      expect(r.body.startsWith('format mismatch: ')).toBe(true);
    }
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${v.key}/${v.id}/${v.pin}`)).body).toBe('');
    expect((await call(svc.port, 'GET', `/api/showdevicejson/${j.key}/${j.id}/${j.pin}`)).body).toBe('{}');
    expect((await call(svc.port, 'GET', `/api/showdevicexml/${x.key}/${x.id}/${x.pin}`)).body).toBe('<data></data>');
  });

  it('answers 413 for a body over maxBodyBytes, whether or not Content-Length announces it', async () => {
    await h.cleanup();
    svc = await h.start({ dataDir: h.dir(), maxBodyBytes: 100 });
    const d = await provision(svc.port, 'JSON');
    const ok = `{"s":"${'a'.repeat(92)}"}`; // exactly 100 bytes
    expect(Buffer.byteLength(ok)).toBe(100);
    expect((await call(svc.port, 'POST', `/api/updatedevicejson/${d.key}/${d.id}/${d.pin}`, ok)).status).toBe(200);
    const big = `{"s":"${'a'.repeat(93)}"}`;
    const r = await call(svc.port, 'POST', `/api/updatedevicejson/${d.key}/${d.id}/${d.pin}`, big);
    expect(r.status).toBe(413);
    expect(r.body).toBe('body too large');
    // chunked, no Content-Length
    const chunk = 'a'.repeat(150);
    const req =
      `POST /api/updatedevicejson/${d.key}/${d.id}/${d.pin} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n` +
      `${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`;
    const c = await rawExchange(svc.port, req);
    expect(c === 'dropped' ? 'dropped' : c.status).toBe(413);
    expect((await call(svc.port, 'GET', `/api/showdevicejson/${d.key}/${d.id}/${d.pin}`)).body).toBe(ok);
  });

  it('answers 413 to a large body with the default limit', async () => {
    const d = await provision(svc.port, 'JSON');
    const big = JSON.stringify({ s: 'x'.repeat(20000) });
    const r = await call(svc.port, 'POST', `/api/updatedevicejson/${d.key}/${d.id}/${d.pin}`, big);
    expect(r.status).toBe(413);
  });
});

describe('routing', () => {
  it.each([
    ['GET', '/nope'],
    ['GET', '/api/'],
    ['GET', '/api/unknownop/a/b'],
    ['GET', '/api/showdevicevalue/k/1'],
    ['GET', '/api/showdevicevalue/k/1/2/3'],
    ['GET', '/api//showdevicevalue/k/1/2'],
    ['GET', '/apix/showdevicevalue/k/1/2'],
  ])('%s %s is 404', async (m, p) => {
    const r = await call(svc.port, m, p);
    expect(r.status).toBe(404);
    expect(r.body).toBe('not found');
  });

  it.each([
    ['POST', '/api/showdevicevalue/k/1/2', 'GET'],
    ['POST', '/api/generateapikey/a@b.c/p', 'GET'],
    ['PUT', '/api/updatedevicevalue/k/1/2/3', 'GET'],
    ['GET', '/api/updatedevicejson/k/1/2', 'POST'],
    ['DELETE', '/api/updatedevicexml/k/1/2', 'POST'],
    ['POST', '/', 'GET'],
  ])('%s %s is 405 with Allow %s', async (m, p, allow) => {
    const r = await call(svc.port, m, p, m === 'POST' ? '{}' : undefined);
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe(allow);
  });

  it('answers every response with Content-Length and Date, never chunked', async () => {
    const d = await provision(svc.port, 'Value');
    const paths = ['/', '/dashboard/state', '/nope', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}`, `/api/showdevicevalue/x/1/2`];
    for (const p of paths) {
      const r = await call(svc.port, 'GET', p);
      expect(r.headers['content-length'], p).toBe(String(Buffer.byteLength(r.body)));
      expect(r.headers['transfer-encoding'], p).toBeUndefined();
      expect(Number.isNaN(Date.parse(r.headers.date ?? '')), p).toBe(false);
    }
  });

  it('ignores a query string', async () => {
    const d = await provision(svc.port, 'Value');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/5?x=1`);
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}?t=2`)).body).toBe('5');
  });

  it('accepts operation names in any case', async () => {
    const d = await provision(svc.port, 'Value');
    const r = await call(svc.port, 'GET', `/api/UpdateDeviceValue/${d.key}/${d.id}/${d.pin}/8`);
    expect(r.status).toBe(200);
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}`)).body).toBe('8');
  });

  it('serves an HTTP/1.0 request without Host', async () => {
    const r = await rawExchange(svc.port, 'GET /nope HTTP/1.0\r\n\r\n');
    expect(r === 'dropped' ? 0 : r.status).toBe(404);
  });
});
