import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { DashboardState } from '../../host/service/dashboard';
import { maskEmail } from '../../host/service/dashboard';
import type { RunningService } from '../../host/service/server';
import { call, provision, serviceHarness } from './helpers';

const h = serviceHarness();
let svc: RunningService;

beforeEach(async () => {
  svc = await h.start({ dataDir: h.dir() });
});
afterEach(() => h.cleanup());

async function state(): Promise<DashboardState> {
  const r = await call(svc.port, 'GET', '/dashboard/state');
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
  return JSON.parse(r.body) as DashboardState;
}

describe('dashboard', () => {
  it('serves a self-contained HTML page', async () => {
    const r = await call(svc.port, 'GET', '/');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.body.startsWith('<!doctype html>')).toBe(true);
    expect(r.body).toContain('id="devices"');
    expect(r.body).toContain('/dashboard/state');
    // nothing loaded from elsewhere: no src/href attributes, no remote URLs except the SVG namespace name
    expect(r.body).not.toMatch(/\s(src|href)=/);
    expect(r.body.replace('http://www.w3.org/2000/svg', '')).not.toMatch(/https?:\/\//);
  });

  it('lists devices with name, format, last value, last-seen time and the charted series', async () => {
    const v = await provision(svc.port, 'Value', 'o@example.com', 'pw', 'Boiler');
    const j = await provision(svc.port, 'JSON', 'o@example.com', 'pw', 'Room');
    const x = await provision(svc.port, 'XML', 'o@example.com', 'pw', 'Shed');
    for (const n of [20, 21.5, 19]) await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/${n}`);
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/off`); // not numeric: not charted
    await call(svc.port, 'POST', `/api/updatedevicejson/${j.key}/${j.id}/${j.pin}`, '{"name":"r","temp":5,"rh":50}');
    await call(svc.port, 'POST', `/api/updatedevicejson/${j.key}/${j.id}/${j.pin}`, '{"name":"r","temp":6,"rh":51}');
    await call(svc.port, 'POST', `/api/updatedevicexml/${x.key}/${x.id}/${x.pin}`, '<r><label>s</label><t>-2.5</t></r>');

    const s = await state();
    expect(s.devices.map((d) => [d.id, d.name, d.format, d.writes])).toEqual([
      [v.id, 'Boiler', 'Value', 4],
      [j.id, 'Room', 'JSON', 2],
      [x.id, 'Shed', 'XML', 1],
    ]);
    const [dv, dj, dx] = s.devices;
    expect(dv?.lastValue).toBe('off');
    expect(dv?.field).toBe('');
    expect(dv?.points.map((p) => p[1])).toEqual([20, 21.5, 19]);
    expect(dj?.lastValue).toBe('{"name":"r","temp":6,"rh":51}');
    expect(dj?.field).toBe('temp');
    expect(dj?.points.map((p) => p[1])).toEqual([5, 6]);
    expect(dx?.field).toBe('t');
    expect(dx?.points.map((p) => p[1])).toEqual([-2.5]);
    for (const d of s.devices) {
      expect(Number.isNaN(Date.parse(d.lastSeen ?? ''))).toBe(false);
      expect(d.owner).toBe('o***@example.com');
    }
  });

  it('shows a table of board health from the JSON devices that hold a health report, and marks a board silent after two intervals', async () => {
    const a = await provision(svc.port, 'JSON', 'o@example.com', 'pw', 'health_a');
    const b = await provision(svc.port, 'JSON', 'o@example.com', 'pw', 'health_b');
    const other = await provision(svc.port, 'JSON', 'o@example.com', 'pw', 'Room');
    const report = (uid: string, intervalS: number): string =>
      JSON.stringify({ fw: '0.1.0', board: 'pico-w', uid, boot: 3, uptimeS: 600, intervalS, heap: { used: 97000, peak: 110000, total: 184312 }, outbox: { depth: 4, dropped: 1 } });
    await call(svc.port, 'POST', `/api/updatedevicejson/${a.key}/${a.id}/${a.pin}`, report('B0', 900));
    await call(svc.port, 'POST', `/api/updatedevicejson/${b.key}/${b.id}/${b.pin}`, report('A1', 0.5));
    await call(svc.port, 'POST', `/api/updatedevicejson/${other.key}/${other.id}/${other.pin}`, '{"temp":5,"intervalS":"no"}');
    await new Promise((r) => setTimeout(r, 1600));
    const s = await state();
    // Ordered by board id; the one whose 0.5 s interval passed twice is silent.
    expect(s.health.map((r) => [r.uid, r.id, r.silent])).toEqual([['A1', b.id, true], ['B0', a.id, false]]);
    expect(s.health[1]).toMatchObject({ name: 'health_a', board: 'pico-w', fw: '0.1.0', boot: 3, uptimeS: 600, intervalS: 900, heapUsed: 97000, outboxDepth: 4, dropped: 1 });
    expect(s.health[1]!.ageS).toBeGreaterThanOrEqual(1);
    const page = await call(svc.port, 'GET', '/');
    expect(page.body).toContain('id="health"');
  });

  it('shows a device that was never written with no value and no points', async () => {
    await provision(svc.port, 'Value');
    const s = await state();
    expect(s.devices[0]).toMatchObject({ lastValue: null, lastSeen: null, field: null, points: [], writes: 0 });
  });

  it('never reveals API keys, PINs or full e-mails', async () => {
    const v = await provision(svc.port, 'Value', 'private.person@example.com', 'pw');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/1`);
    const raw = (await call(svc.port, 'GET', '/dashboard/state')).body;
    expect(raw).not.toContain(v.key);
    expect(raw).not.toContain(v.key.slice(0, 8));
    expect(raw).not.toContain(String(v.pin));
    expect(raw).not.toContain('private.person');
    expect(raw.toLowerCase()).not.toContain('pin');
    expect(raw.toLowerCase()).not.toContain('key');
  });

  it('truncates long values', async () => {
    const v = await provision(svc.port, 'Value');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/${'z'.repeat(500)}`);
    const s = await state();
    expect(s.devices[0]?.lastValue).toBe('z'.repeat(200) + '…');
  });

  it('masks e-mails', () => {
    expect(maskEmail('anna@example.org')).toBe('a***@example.org');
    expect(maskEmail('@x')).toBe('?***@x');
  });
});
