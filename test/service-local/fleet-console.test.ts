// The dashboard as the fleet's console (issue 36), over HTTP: what the state
// says of boards, configuration devices and the devices boards write; the
// configuration write, which changes nothing without the dashboard's
// credentials (foreign Host 421, foreign Origin 403, no token beyond loopback
// 401) or with an invalid document (422, one line per broken rule); a
// device's history as JSON and CSV; the page's icon.

import { afterEach, describe, expect, it } from 'vitest';

import type { DashboardState } from '../../host/service/dashboard';
import type { RunningService, WriteEvent } from '../../host/service/server';
import { makeFleet, report, UID, writeJson } from './fleet-fixture';
import type { Dev } from './fleet-fixture';
import { call, dashboardState, serviceHarness } from './helpers';
import type { RawResponse } from './helpers';
import { send } from './security-helpers';

const h = serviceHarness();
afterEach(() => h.cleanup());

const state = dashboardState;

async function stored(svc: RunningService, d: Dev): Promise<string> {
  return (await call(svc.port, 'GET', `/api/showdevicejson/${d.key}/${d.id}/${d.pin}`)).body;
}

function post(svc: RunningService, path: string, body: unknown, headers: Record<string, string | null> = {}): Promise<RawResponse> {
  return send(svc.port, { method: 'POST', target: path, headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

describe('the fleet in the dashboard state', () => {
  it("gives one row per board with its configuration's CRC and source, the last document's outcome, heap, outbox, last reset and held devices", async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const f = await makeFleet(svc.port);
    await writeJson(svc.port, f.health, report(f, { outcome: 'refused: sensor.temp.intervalMs: must be a whole number from 1000 to 86400000', ignored: ['wifi.ssid'] }));
    const s = await state(svc);
    expect(s.health).toHaveLength(1);
    expect(s.health[0]).toMatchObject({
      id: f.health.id, board: 'pico-w', uid: UID, fw: '0.2.0', boot: 7, uptimeS: 3700, intervalS: 60, mode: 'running',
      heapUsed: 97000, heapPeak: 110000, heapTotal: 184312, outboxDepth: 4, dropped: 1,
      configCrc: 'a1b2c3d4', configSource: 'service', lastReset: 'reboot() asked',
      remote: { id: f.cfg.id, crc: 'deadbeef', outcome: 'refused: sensor.temp.intervalMs: must be a whole number from 1000 to 86400000', ignored: ['wifi.ssid'], atS: 30 },
      held: [{ device: 'tx', status: 404, reason: 'device not found' }],
      silent: false,
    });
  });

  it('shows a configuration device with its document, PINs masked, and which boards run it', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const f = await makeFleet(svc.port);
    const crc = (await state(svc)).devices.find((d) => d.id === f.cfg.id)?.config?.crc;
    expect(crc).toMatch(/^[0-9a-f]{1,8}$/);
    await writeJson(svc.port, f.health, report(f, { crc: crc as string, outcome: 'applied' }));
    const raw = (await call(svc.port, 'GET', '/dashboard/state')).body;
    for (const d of [f.cfg, f.health, f.tv, f.tj, f.ctl]) expect(raw).not.toContain(`${d.pin}`);
    const s = JSON.parse(raw) as DashboardState;
    const card = s.devices.find((d) => d.id === f.cfg.id);
    expect(card?.config).toMatchObject({ errors: [], ignored: [], users: [{ healthId: f.health.id, board: `pico-w ${UID}`, crc, outcome: 'applied', current: true }] });
    expect(JSON.parse(card?.config?.document ?? '')).toMatchObject({ devices: [{ name: 'tv', deviceId: f.tv.id, devicePin: '(kept)' }, { name: 'tj' }] });
    // Its numbers (pins, periods) are no chart.
    expect(card?.points).toEqual([]);
    // A board that runs another document is said so.
    await writeJson(svc.port, f.health, report(f, { crc: 'deadbeef' }));
    expect((await state(svc)).devices.find((d) => d.id === f.cfg.id)?.config?.users[0]?.current).toBe(false);
  });

  it("marks the devices boards write (no Set form, set-value refused) and leaves the control device settable", async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const f = await makeFleet(svc.port);
    await writeJson(svc.port, f.health, report(f));
    const s = await state(svc);
    const by = (id: number) => s.devices.find((d) => d.id === id);
    expect(by(f.tv.id)?.boardWrites).toBe('readings of device tv in configuration #' + f.cfg.id);
    expect(by(f.tj.id)?.boardWrites).toMatch(/^readings of device tj/);
    expect(by(f.health.id)?.boardWrites).toBe(`the health reports of board pico-w ${UID}`);
    expect(by(f.tx.id)?.boardWrites).toMatch(/^readings of board pico-w .*held: tx/);
    expect(by(f.ctl.id)?.boardWrites).toBeNull();
    expect(by(f.cfg.id)?.boardWrites).toBeNull();
    const r = await post(svc, '/dashboard/set-value', { deviceId: f.tv.id, value: '99' });
    expect(r.status).toBe(400);
    expect(r.body).toBe(`deviceId: device ${f.tv.id} holds readings of device tv in configuration #${f.cfg.id}; the dashboard does not set it`);
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${f.tv.key}/${f.tv.id}/${f.tv.pin}`)).body).toBe('22.25');
  });

  it('knows a JSON or XML device written by a board by the seq and uptime_ms of its writes', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const f = await makeFleet(svc.port);
    // No configuration and no report name them any more.
    await writeJson(svc.port, f.cfg, '{"agent":{"lkgRevertMs":600000}}');
    const s = await state(svc);
    expect(s.devices.find((d) => d.id === f.tj.id)?.boardWrites).toBe('readings of a board (its writes carry seq and uptime_ms)');
    expect(s.devices.find((d) => d.id === f.tx.id)?.boardWrites).toBe('readings of a board (its writes carry seq and uptime_ms)');
    expect(s.devices.find((d) => d.id === f.tv.id)?.boardWrites).toBeNull();
  });

  it("gives each chart's unit: the configuration's sensor, an XML write's unit, an output's level, a report's heap", async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const f = await makeFleet(svc.port);
    await writeJson(svc.port, f.health, report(f));
    const s = await state(svc);
    const by = (id: number) => s.devices.find((d) => d.id === id);
    expect([by(f.tv.id)?.field, by(f.tv.id)?.unit]).toEqual(['', 'C']);
    expect([by(f.tj.id)?.field, by(f.tj.id)?.unit]).toEqual(['temp', 'C']);
    expect([by(f.tx.id)?.field, by(f.tx.id)?.unit]).toEqual(['ldr', 'V']);
    expect([by(f.ctl.id)?.field, by(f.ctl.id)?.unit]).toEqual(['', 'level 0/1']);
    expect([by(f.health.id)?.field, by(f.health.id)?.unit]).toEqual(['heap.used', 'B']);
    expect(by(f.health.id)?.points.map((p) => p[1])).toEqual([97000]);
  });

  it("shows the outputs reading a device with their refused counts, and says when a value set will be refused", async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const f = await makeFleet(svc.port);
    await writeJson(svc.port, f.health, report(f, { refused: 2 }));
    const s = await state(svc);
    expect(s.devices.find((d) => d.id === f.ctl.id)?.readers).toEqual([
      { board: `pico-w ${UID}`, healthId: f.health.id, configId: f.cfg.id, output: 'relay', kind: 'digital', takes: '0/1, on/off or true/false', reads: 10, failed: 1, refused: 2, level: 0, ageS: expect.any(Number) },
    ]);
    const ok = await post(svc, '/dashboard/set-value', { deviceId: f.ctl.id, value: 'on' });
    expect([ok.status, ok.body]).toEqual([200, 'Value updated']);
    const warned = await post(svc, '/dashboard/set-value', { deviceId: f.ctl.id, value: '50%' });
    expect(warned.status).toBe(200);
    expect(warned.body).toBe(`Value updated; output relay of board pico-w ${UID} refuses it: not 0/1, on/off or true/false`);
  });
});

describe('writing a configuration from the dashboard', () => {
  const valid = (f: { doc: Record<string, unknown> }): Record<string, unknown> => ({ ...f.doc, agent: { backoffBaseMs: 5000 } });

  it('writes a valid document through the API, PINs kept, and says which keys boards ignore', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const f = await makeFleet(svc.port);
    const shown = JSON.parse((await state(svc)).devices.find((d) => d.id === f.cfg.id)?.config?.document ?? '') as Record<string, unknown>;
    const writes: WriteEvent[] = [];
    svc.events.on('write', (w: WriteEvent) => writes.push(w));
    const typed = JSON.stringify({ ...shown, agent: { backoffBaseMs: 5000 }, wifi: { ssid: 'elsewhere' } }, null, 2);
    const r = await post(svc, '/dashboard/set-config', { deviceId: f.cfg.id, document: typed });
    expect([r.status, r.body]).toEqual([200, 'JSON updated; ignored by boards: wifi.ssid']);
    // Stored compact, with the real PINs a board needs.
    expect(JSON.parse(await stored(svc, f.cfg))).toEqual({ ...f.doc, agent: { backoffBaseMs: 5000 }, wifi: { ssid: 'elsewhere' } });
    expect(writes.map((w) => w.deviceId)).toEqual([f.cfg.id]);
  });

  it('refuses an invalid document with 422 and one line per broken rule, and writes nothing', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const f = await makeFleet(svc.port);
    const before = await stored(svc, f.cfg);
    const writes: WriteEvent[] = [];
    svc.events.on('write', (w: WriteEvent) => writes.push(w));
    const bad = { ...f.doc, agent: { backoffBaseMs: 1, lkgRevertMs: 0 }, outputs: [{ name: 'relay', kind: 'digital', pin: 99, sourceId: f.ctl.id, sourcePin: f.ctl.pin }] };
    const r = await post(svc, '/dashboard/set-config', { deviceId: f.cfg.id, document: JSON.stringify(bad) });
    expect(r.status).toBe(422);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.body.split('\n')).toEqual(['agent.backoffBaseMs: must be a whole number from 100 to 60000', 'output.relay.pin: must be a whole number from 0 to 29']);
    const notJson = await post(svc, '/dashboard/set-config', { deviceId: f.cfg.id, document: '{"board": "pico-w",' });
    expect(notJson.status).toBe(422);
    expect(notJson.body).toMatch(/^document: not JSON \(/);
    expect(await stored(svc, f.cfg)).toBe(before);
    expect(writes).toEqual([]);
  });

  it('checks a document without writing it', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const f = await makeFleet(svc.port);
    const before = await stored(svc, f.cfg);
    const r = await post(svc, '/dashboard/check-config', { deviceId: f.cfg.id, document: JSON.stringify({ ...f.doc, wifi: { ssid: 'x' }, colour: 1 }) });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ errors: ['colour: unknown key'], ignored: ['wifi.ssid'] });
    expect(await stored(svc, f.cfg)).toBe(before);
  });

  it('refuses bad requests in one line naming the field: no JSON device, a device a board writes, no document', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const f = await makeFleet(svc.port);
    await writeJson(svc.port, f.health, report(f));
    const cases: [unknown, string][] = [
      [{ deviceId: f.ctl.id, document: '{}' }, `deviceId: device ${f.ctl.id} holds Value; a configuration is a JSON device`],
      [{ deviceId: f.tj.id, document: '{}' }, `deviceId: device ${f.tj.id} holds readings of device tj in configuration #${f.cfg.id}; a configuration needs a JSON device of its own`],
      [{ deviceId: f.health.id, document: '{}' }, `deviceId: device ${f.health.id} holds the health reports of board pico-w ${UID}; a configuration needs a JSON device of its own`],
      [{ deviceId: f.cfg.id, document: { board: 'pico-w' } }, 'document: must be a string, the configuration as JSON text'],
      [{ deviceId: 0, document: '{}' }, 'deviceId: must be a whole number from 1'],
      [{ deviceId: 999, document: '{}' }, 'deviceId: no device 999'],
      [[1], 'body: must be a JSON object {"deviceId": <number>, "document": <the configuration as JSON text>}'],
    ];
    for (const [body, line] of cases) {
      const r = await post(svc, '/dashboard/set-config', body);
      expect([r.status, r.body], JSON.stringify(body)).toEqual([400, line]);
    }
    expect((await post(svc, '/dashboard/set-config', '{"deviceId": 1,', {})).status).toBe(400);
    expect((await post(svc, '/dashboard/set-config', JSON.stringify({ deviceId: f.cfg.id, document: '{}' }), { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await send(svc.port, { target: '/dashboard/set-config' })).status).toBe(405);
    expect((await stored(svc, f.tj)).includes('"seq"')).toBe(true);
  });

  it('changes nothing for a foreign Host (421) or a foreign Origin (403)', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const f = await makeFleet(svc.port);
    const before = await stored(svc, f.cfg);
    const body = { deviceId: f.cfg.id, document: JSON.stringify(valid(f)) };
    const evil = `rebind.evil.example:${svc.port}`;
    const host = await post(svc, '/dashboard/set-config', body, { Host: evil, Origin: `http://${evil}` });
    expect(host.status).toBe(421);
    expect(host.body).toMatch(/^Host: /);
    for (const origin of ['http://evil.example', 'null', `http://localhost:${svc.port + 1}`]) {
      const r = await post(svc, '/dashboard/set-config', body, { Origin: origin });
      expect([r.status, origin]).toEqual([403, origin]);
    }
    expect((await post(svc, '/dashboard/set-config', body, { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await post(svc, '/dashboard/check-config', body, { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await send(svc.port, { target: `/dashboard/history?deviceId=${f.cfg.id}`, headers: { Host: evil } })).status).toBe(421);
    expect(await stored(svc, f.cfg)).toBe(before);
    // The page's own origin writes.
    const own = await post(svc, '/dashboard/set-config', body, { Origin: `http://127.0.0.1:${svc.port}`, 'Sec-Fetch-Site': 'same-origin' });
    expect(own.status).toBe(200);
    expect(JSON.parse(await stored(svc, f.cfg))).toEqual(valid(f));
  });

  it('beyond loopback changes nothing without the token (401), and writes with it', async () => {
    const svc = await h.start({ dataDir: h.dir(), host: '0.0.0.0' });
    const f = await makeFleet(svc.port);
    const before = await stored(svc, f.cfg);
    const body = { deviceId: f.cfg.id, document: JSON.stringify(valid(f)) };
    for (const auth of [null, 'Bearer wrong-token', `Bearer ${(svc.dashboardToken as string).slice(1)}`]) {
      const r = await post(svc, '/dashboard/set-config', body, { Authorization: auth });
      expect(r.status).toBe(401);
      expect(r.body).toMatch(/^Authorization: /);
    }
    expect((await post(svc, '/dashboard/check-config', body)).status).toBe(401);
    expect((await send(svc.port, { target: `/dashboard/history?deviceId=${f.cfg.id}&format=csv` })).status).toBe(401);
    expect(await stored(svc, f.cfg)).toBe(before);
    const ok = await post(svc, '/dashboard/set-config', body, { Authorization: `Bearer ${svc.dashboardToken as string}` });
    expect([ok.status, ok.body]).toEqual([200, 'JSON updated']);
    expect(JSON.parse(await stored(svc, f.cfg))).toEqual(valid(f));
  });
});

describe("a device's history and the page's icon", () => {
  it('gives the kept writes as JSON and as a CSV download', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const f = await makeFleet(svc.port);
    const j = await call(svc.port, 'GET', `/dashboard/history?deviceId=${f.tv.id}`);
    expect(j.status).toBe(200);
    const hist = JSON.parse(j.body) as { field: string; unit: string; kept: number; writes: number; rows: { at: string; value: number | null; content: string }[] };
    expect(hist).toMatchObject({ field: '', unit: 'C', kept: 3, writes: 3 });
    expect(hist.rows.map((r) => [r.value, r.content])).toEqual([[20.5, '20.5'], [21, '21'], [22.25, '22.25']]);
    const c = await call(svc.port, 'GET', `/dashboard/history?deviceId=${f.tj.id}&format=csv`);
    expect(c.status).toBe(200);
    expect(c.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(c.headers['content-disposition']).toBe(`attachment; filename="device-${f.tj.id}-history.csv"`);
    const lines = c.body.split('\r\n');
    expect(lines[0]).toBe('time (UTC),temp (C),stored text');
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z,20\.5,"\{""temp"":20\.5,""air\.humidity"":45,""seq"":3,""uptime_ms"":1000\}"$/);
    expect(lines).toHaveLength(5);
    // A configuration's history keeps its PINs to itself.
    const cfg = await call(svc.port, 'GET', `/dashboard/history?deviceId=${f.cfg.id}&format=csv`);
    expect(cfg.body).toContain('(kept)');
    for (const d of [f.tv, f.tj, f.ctl, f.health]) expect(cfg.body).not.toContain(String(d.pin));
    expect((await call(svc.port, 'GET', '/dashboard/history?deviceId=x')).body).toBe('deviceId: must be a whole number from 1');
    expect((await call(svc.port, 'GET', `/dashboard/history?deviceId=${f.tv.id}&format=xls`)).body).toBe('format: must be json or csv');
  });

  it('answers /favicon.ico with a PNG, so the page asks for nothing that is not there', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const r = await call(svc.port, 'GET', '/favicon.ico');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('image/png');
    expect(r.raw.subarray(r.raw.indexOf('\r\n\r\n') + 4, r.raw.indexOf('\r\n\r\n') + 12)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });
});
