import * as fs from 'node:fs';
import * as path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { JOURNAL_FILE } from '../../host/service/store';
import { call, provision, serviceHarness } from './helpers';

const h = serviceHarness();
afterEach(() => h.cleanup());

describe('journal persistence', () => {
  it('keeps accounts, devices, data and id numbering across close and restart', async () => {
    const dir = h.dir();
    let svc = await h.start({ dataDir: dir });
    const v = await provision(svc.port, 'Value', 'p@example.com', 'pw');
    const j = await provision(svc.port, 'JSON', 'p@example.com', 'pw');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/1.5`);
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/2.5`);
    await call(svc.port, 'POST', `/api/updatedevicejson/${j.key}/${j.id}/${j.pin}`, '{"t":3}');
    await svc.close();

    svc = await h.start({ dataDir: dir });
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${v.key}/${v.id}/${v.pin}`)).body).toBe('2.5');
    expect((await call(svc.port, 'GET', `/api/showdevicejson/${j.key}/${j.id}/${j.pin}`)).body).toBe('{"t":3}');
    // same key for the same credentials; wrong password still refused
    const k = await call(svc.port, 'GET', '/api/generateapikey/p@example.com/pw');
    expect(JSON.parse(k.body)).toEqual({ APIKey: v.key });
    expect((await call(svc.port, 'GET', '/api/generateapikey/p@example.com/other')).status).toBe(401);
    // numbering continues
    const d = await call(svc.port, 'GET', `/api/createuserdevice/${v.key}/third/None/XML`);
    expect((JSON.parse(d.body) as { DeviceID: number }).DeviceID).toBe(3);
    // history survives: the dashboard shows both value writes
    const state = JSON.parse((await call(svc.port, 'GET', '/dashboard/state')).body) as {
      devices: { id: number; writes: number; points: [number, number][] }[];
    };
    const dev = state.devices.find((x) => x.id === v.id);
    expect(dev?.writes).toBe(2);
    expect(dev?.points.map((p) => p[1])).toEqual([1.5, 2.5]);
  });

  it('writes one JSON line per acknowledged change and stores no password', async () => {
    const dir = h.dir();
    const svc = await h.start({ dataDir: dir });
    const v = await provision(svc.port, 'Value', 'p@example.com', 'hunter2-secret');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/9`);
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin + 1}/9`); // 404: not journaled
    const text = fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8');
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as { op: string });
    expect(lines.map((l) => l.op)).toEqual(['account', 'device', 'write']);
    expect(text.includes('hunter2-secret')).toBe(false);
  });

  it('ignores a torn last line and appends cleanly after it', async () => {
    const dir = h.dir();
    let svc = await h.start({ dataDir: dir });
    const v = await provision(svc.port, 'Value');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/10`);
    await svc.close();
    const file = path.join(dir, JOURNAL_FILE);
    fs.appendFileSync(file, '{"op":"write","at":"2026-01-01T00:00:00.000Z","id":1,"cont');

    const logs: string[] = [];
    svc = await h.start({ dataDir: dir, log: (l) => logs.push(l) });
    expect(logs.some((l) => l.startsWith('journal: ignoring a torn last line'))).toBe(true);
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${v.key}/${v.id}/${v.pin}`)).body).toBe('10');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/11`);
    await svc.close();

    // every line is whole JSON again
    for (const line of fs.readFileSync(file, 'utf8').trimEnd().split('\n')) expect(() => {
      JSON.parse(line);
    }).not.toThrow();
    svc = await h.start({ dataDir: dir });
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${v.key}/${v.id}/${v.pin}`)).body).toBe('11');
  });

  it('bounds the in-memory history per device but journals every write', async () => {
    const dir = h.dir();
    const svc = await h.start({ dataDir: dir, historyLimit: 5 });
    const v = await provision(svc.port, 'Value');
    for (let i = 1; i <= 8; i++) await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/${i}`);
    const state = JSON.parse((await call(svc.port, 'GET', '/dashboard/state')).body) as {
      devices: { writes: number; points: [number, number][] }[];
    };
    expect(state.devices[0]?.writes).toBe(8);
    expect(state.devices[0]?.points.map((p) => p[1])).toEqual([4, 5, 6, 7, 8]);
    const writes = fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8').split('\n').filter((l) => l.includes('"op":"write"'));
    expect(writes).toHaveLength(8);
  });
});
