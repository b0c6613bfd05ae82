// POST /dashboard/set-value: the dashboard's form stores a value in a Value
// device through the API's own updatedevicevalue (key and PIN looked up by
// the service, never sent to the page), and refuses bad input with a 400
// that names the field. Also the board panel a host hands the dashboard.

import { afterEach, describe, expect, it } from 'vitest';

import type { BoardPanel } from '../../host/service/dashboard';
import type { RunningService, WriteEvent } from '../../host/service/server';
import { call, dashboardState, enc, provision, rawExchange, serviceHarness } from './helpers';
import type { RawResponse } from './helpers';

const h = serviceHarness();
afterEach(() => h.cleanup());

const state = dashboardState;

function setValue(svc: RunningService, body: unknown, type = 'application/json'): Promise<RawResponse> {
  return call(svc.port, 'POST', '/dashboard/set-value', typeof body === 'string' ? body : JSON.stringify(body), type);
}

async function show(svc: RunningService, d: { key: string; id: number; pin: number }): Promise<string> {
  const r = await call(svc.port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}`);
  expect(r.status).toBe(200);
  return r.body;
}

/** A JSON POST with an Origin header, as a browser sends it. */
async function fromOrigin(svc: RunningService, origin: string, body: unknown): Promise<RawResponse> {
  const b = Buffer.from(JSON.stringify(body), 'utf8');
  const head = `POST /dashboard/set-value HTTP/1.1\r\nHost: 127.0.0.1:${svc.port}\r\nOrigin: ${origin}\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n`;
  const r = await rawExchange(svc.port, Buffer.concat([Buffer.from(head, 'latin1'), b]));
  if (r === 'dropped') throw new Error('set-value: connection dropped');
  return r;
}

/** A 400 whose body is one line starting with the field's name. */
function expectRefused(r: RawResponse, field: string): void {
  expect(r.status, r.body).toBe(400);
  expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
  expect(r.body.startsWith(field + ': '), r.body).toBe(true);
  expect(r.body).not.toContain('\n');
}

describe('POST /dashboard/set-value', () => {
  it("stores the value through the API: the API's answer, the stored value, the history and the write event", async () => {
    const log: string[] = [];
    const svc = await h.start({ dataDir: h.dir(), log: (l) => void log.push(l) });
    const v = await provision(svc.port, 'Value', 'owner@example.com', 'pw', 'control');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/0`);
    const events: WriteEvent[] = [];
    svc.events.on('write', (e: WriteEvent) => events.push(e));

    const r = await setValue(svc, { deviceId: v.id, value: '1' });
    expect(r.status).toBe(200);
    expect(r.body).toBe('Value updated');
    expect(await show(svc, v)).toBe('1');
    const s = await state(svc);
    expect(s.devices[0]).toMatchObject({ id: v.id, lastValue: '1', writes: 2 });
    expect(s.devices[0]!.points.map((p) => p[1])).toEqual([0, 1]);
    expect(events.map((e) => [e.deviceId, e.content])).toEqual([[v.id, '1']]);

    // Any text, stored as given: slashes, percent signs, spaces, non-ASCII.
    const odd = 'a/b %2F ü 21.5';
    expect((await setValue(svc, { deviceId: v.id, value: odd })).body).toBe('Value updated');
    expect(await show(svc, v)).toBe(odd);

    // The log names the dispatched operation without the key or the PIN.
    const lines = log.filter((l) => l.startsWith('dashboard: GET /api/updatedevicevalue/'));
    expect(lines).toHaveLength(2);
    for (const l of log) {
      expect(l).not.toContain(v.key);
      expect(l).not.toContain(`/${v.pin}/`);
    }
  });

  it('refuses a deviceId that is not a whole number of an existing device, and a device of another format', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const v = await provision(svc.port, 'Value', 'owner@example.com', 'pw', 'control');
    const j = await provision(svc.port, 'JSON', 'owner@example.com', 'pw', 'room');
    await call(svc.port, 'POST', `/api/updatedevicejson/${j.key}/${j.id}/${j.pin}`, '{"t":1}');
    for (const deviceId of [String(v.id), v.id + 0.5, 0, -1, null, true, 1e21]) {
      expectRefused(await setValue(svc, { deviceId, value: '1' }), 'deviceId');
    }
    expectRefused(await setValue(svc, { value: '1' }), 'deviceId');
    const missing = await setValue(svc, { deviceId: 999, value: '1' });
    expectRefused(missing, 'deviceId');
    expect(missing.body).toBe('deviceId: no device 999');
    const json = await setValue(svc, { deviceId: j.id, value: '1' });
    expectRefused(json, 'deviceId');
    expect(json.body).toContain('JSON');
    // Nothing was written anywhere.
    const s = await state(svc);
    expect(s.devices.map((d) => [d.id, d.writes, d.lastValue])).toEqual([
      [v.id, 0, null],
      [j.id, 1, '{"t":1}'],
    ]);
  });

  it("refuses a value that is not a string, is empty, or is over the API's limit; takes one exactly at it", async () => {
    const svc = await h.start({ dataDir: h.dir(), maxBodyBytes: 100 });
    const v = await provision(svc.port, 'Value');
    for (const value of [1, null, ['1'], { v: '1' }]) expectRefused(await setValue(svc, { deviceId: v.id, value }), 'value');
    expectRefused(await setValue(svc, { deviceId: v.id }), 'value');
    expectRefused(await setValue(svc, { deviceId: v.id, value: '' }), 'value');
    const over = await setValue(svc, { deviceId: v.id, value: 'z'.repeat(101) });
    expectRefused(over, 'value');
    expect(over.body).toContain('100 bytes');
    // The limit is in UTF-8 bytes: 51 two-byte characters are 102.
    expectRefused(await setValue(svc, { deviceId: v.id, value: 'é'.repeat(51) }), 'value');
    expectRefused(await setValue(svc, { deviceId: v.id, value: '\ud800' }), 'value');
    expect((await state(svc)).devices[0]!.writes).toBe(0);

    expect((await setValue(svc, { deviceId: v.id, value: 'z'.repeat(100) })).status).toBe(200);
    expect(await show(svc, v)).toBe('z'.repeat(100));
    expect((await setValue(svc, { deviceId: v.id, value: 'é'.repeat(50) })).status).toBe(200);
    expect(await show(svc, v)).toBe('é'.repeat(50));
  });

  it('holds the API itself to the same limit for a Value write', async () => {
    const svc = await h.start({ dataDir: h.dir(), maxBodyBytes: 100 });
    const v = await provision(svc.port, 'Value');
    const over = await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/${enc('z'.repeat(101))}`);
    expect(over.status).toBe(413);
    expect((await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/${'z'.repeat(100)}`)).status).toBe(200);
  });

  it('refuses a body that is not a JSON object, another content type, another origin and another method', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const v = await provision(svc.port, 'Value');
    for (const body of ['not json', '[1]', '"x"', 'null']) expectRefused(await setValue(svc, body), 'body');
    expect((await setValue(svc, { deviceId: v.id, value: '1' }, 'text/plain')).status).toBe(415);
    expect((await setValue(svc, `deviceId=${v.id}&value=1`, 'application/x-www-form-urlencoded')).status).toBe(415);
    expect((await fromOrigin(svc, 'http://evil.example', { deviceId: v.id, value: '1' })).status).toBe(403);
    expect((await fromOrigin(svc, `http://127.0.0.1:${svc.port}`, { deviceId: v.id, value: '2' })).status).toBe(200);
    const get = await call(svc.port, 'GET', '/dashboard/set-value');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect((await state(svc)).devices[0]).toMatchObject({ writes: 1, lastValue: '2' });
  });
});

describe('the board panel', () => {
  const panel: BoardPanel = {
    title: 'pico-w simulated',
    outputs: [{ gpio: 16, name: 'relay', kind: 'digital', level: 1, freqHz: null, writes: 3, open: true }],
  };

  it('is in the state when the host provides one, asked for on every poll', async () => {
    let asked = 0;
    const svc = await h.start({ dataDir: h.dir(), board: () => (asked++, panel) });
    expect((await state(svc)).board).toEqual(panel);
    expect((await state(svc)).board).toEqual(panel);
    expect(asked).toBe(2);
  });

  it('is null without a provider, and when the provider fails (the rest of the state still served)', async () => {
    const plain = await h.start({ dataDir: h.dir() });
    expect((await state(plain)).board).toBeNull();
    const log: string[] = [];
    const failing = await h.start({
      dataDir: h.dir(),
      log: (l) => void log.push(l),
      board: () => {
        throw new Error('pins gone');
      },
    });
    await provision(failing.port, 'Value');
    const s = await state(failing);
    expect(s.board).toBeNull();
    expect(s.devices).toHaveLength(1);
    expect(log.some((l) => l.includes('pins gone'))).toBe(true);
  });
});
