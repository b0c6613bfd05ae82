// What the store holds is bounded: accounts, devices per account, history per
// device (entries and bytes); the journal is compacted atomically once it is
// several times the live state, and replayed line by line, so a journal over
// the largest string the runtime can build still starts.

import * as fs from 'node:fs';
import * as path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { JOURNAL_FILE, Store } from '../../host/service/store';
import { call, enc, provision, serviceHarness } from './helpers';

const h = serviceHarness();
afterEach(() => h.cleanup());

/** A cheap password hash so a test can make a hundred accounts quickly; the default cost is tested elsewhere. */
const FAST = { N: 2, r: 1, p: 1 };

interface State {
  devices: { id: number; name: string; writes: number; lastValue: string | null; points: [number, number][] }[];
}

async function state(port: number): Promise<State> {
  return JSON.parse((await call(port, 'GET', '/dashboard/state')).body) as State;
}

function journal(dir: string): string {
  return fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8');
}

describe('store limits', () => {
  it('holds 100 accounts by default and refuses a new one beyond with 403, naming the limit; known accounts still log in', async () => {
    const dir = h.dir();
    const svc = await h.start({ dataDir: dir, store: { scrypt: FAST } });
    for (let i = 1; i <= 100; i++) {
      expect((await call(svc.port, 'GET', `/api/generateapikey/u${i}%40example.com/pw`)).status).toBe(200);
    }
    const over = await call(svc.port, 'GET', '/api/generateapikey/u101%40example.com/pw');
    expect(over.status).toBe(403);
    expect(over.body).toBe('account limit reached: this service holds at most 100 accounts');
    expect((await call(svc.port, 'GET', '/api/generateapikey/u7%40example.com/pw')).status).toBe(200);
    expect((await call(svc.port, 'GET', '/api/generateapikey/u7%40example.com/wrong')).status).toBe(401);
    expect(journal(dir)).not.toContain('u101@');
  });

  it('holds 100 devices per account by default; the 101st is 403 and nothing is stored, another account still gets devices', async () => {
    const dir = h.dir();
    let svc = await h.start({ dataDir: dir, store: { scrypt: FAST } });
    const a = await provision(svc.port, 'Value', 'a@example.com', 'pw', 'd1');
    for (let i = 2; i <= 100; i++) {
      expect((await call(svc.port, 'GET', `/api/createuserdevice/${a.key}/d${i}/None/Value`)).status).toBe(200);
    }
    const over = await call(svc.port, 'GET', `/api/createuserdevice/${a.key}/d101/None/Value`);
    expect(over.status).toBe(403);
    expect(over.body).toBe('device limit reached: an account holds at most 100 devices');
    const b = await provision(svc.port, 'JSON', 'b@example.com', 'pw');
    expect(b.id).toBe(101); // the refused one took no id
    await svc.close();
    svc = await h.start({ dataDir: dir, store: { scrypt: FAST } });
    expect((await state(svc.port)).devices).toHaveLength(101);
    expect((await call(svc.port, 'GET', `/api/createuserdevice/${a.key}/again/None/Value`)).status).toBe(403);
  });

  it('takes its limits from the service options and keeps what is journaled when they are lowered', async () => {
    const dir = h.dir();
    let svc = await h.start({ dataDir: dir, store: { scrypt: FAST, maxAccounts: 3, maxDevicesPerAccount: 2 } });
    const a = await provision(svc.port, 'Value', 'a@example.com');
    await provision(svc.port, 'Value', 'b@example.com');
    expect((await call(svc.port, 'GET', `/api/createuserdevice/${a.key}/second/None/XML`)).status).toBe(200);
    expect((await call(svc.port, 'GET', `/api/createuserdevice/${a.key}/third/None/XML`)).status).toBe(403);
    expect((await call(svc.port, 'GET', `/api/generateapikey/${enc('c@example.com')}/pw`)).status).toBe(200);
    expect((await call(svc.port, 'GET', `/api/generateapikey/${enc('d@example.com')}/pw`)).status).toBe(403);
    await svc.close();
    svc = await h.start({ dataDir: dir, store: { scrypt: FAST, maxAccounts: 1, maxDevicesPerAccount: 1 } });
    expect((await state(svc.port)).devices).toHaveLength(3);
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${a.key}/${a.id}/${a.pin}`)).status).toBe(200);
    expect((await call(svc.port, 'GET', `/api/generateapikey/${enc('e@example.com')}/pw`)).status).toBe(403);
  });

  it('refuses limits that are not whole numbers from 1, naming the option', () => {
    expect(() => new Store({ dataDir: h.dir(), maxAccounts: 0 })).toThrow('maxAccounts must be a whole number from 1');
    expect(() => new Store({ dataDir: h.dir(), historyBytes: 1.5 })).toThrow('historyBytes must be a whole number from 1');
  });

  it('keeps at most historyLimit entries and historyBytes journal bytes of history per device, always the latest', () => {
    const store = new Store({ dataDir: h.dir(), historyLimit: 1000, historyBytes: 4096, scrypt: FAST });
    try {
      const acc = store.accounts.get('x@example.com') ?? (store.apiKeyFor('x@example.com', 'pw'), store.accounts.get('x@example.com'));
      const dev = store.createDevice(acc!, 'big', 'None', 'JSON');
      for (let i = 0; i < 50; i++) store.write(dev, JSON.stringify({ i, pad: 'p'.repeat(900) }));
      expect(dev.writes).toBe(50);
      expect(dev.history.length).toBeLessThanOrEqual(4);
      expect(dev.history.reduce((n, e) => n + e.bytes, 0)).toBeLessThanOrEqual(4096);
      expect(JSON.parse(dev.history[dev.history.length - 1]!.content)).toMatchObject({ i: 49 });
      store.write(dev, JSON.stringify({ huge: 'h'.repeat(10000) })); // over historyBytes alone: still kept
      expect(dev.history).toHaveLength(1);
      expect(dev.content).toContain('hhhh');
    } finally {
      store.close();
    }
  });
});

describe('journal compaction', () => {
  it('rewrites the journal from the state once it is past compactRatio times the live size, losing nothing held', async () => {
    const dir = h.dir();
    const logs: string[] = [];
    const opts = { scrypt: FAST, compactRatio: 2, compactMinBytes: 4096 };
    let svc = await h.start({ dataDir: dir, historyLimit: 10, store: opts, log: (l) => logs.push(l) });
    const v = await provision(svc.port, 'Value', 'a@example.com', 'pw');
    const j = await provision(svc.port, 'JSON', 'b@example.com', 'pw');
    for (let i = 1; i <= 400; i++) {
      expect((await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/${i}`)).status).toBe(200);
    }
    expect((await call(svc.port, 'POST', `/api/updatedevicejson/${j.key}/${j.id}/${j.pin}`, '{"t":1}')).status).toBe(200);
    const size = fs.statSync(path.join(dir, JOURNAL_FILE)).size;
    // 400 writes are about 30 KB of journal; held are 2 accounts, 2 devices and 11 writes.
    expect(size).toBeLessThan(8192);
    expect(logs.some((l) => /^journal: compacted from \d+ to \d+ bytes$/.test(l))).toBe(true);
    expect(fs.readdirSync(dir)).toEqual([JOURNAL_FILE]); // no temp file left
    expect(fs.statSync(path.join(dir, JOURNAL_FILE)).mode & 0o777).toBe(0o600);
    const before = await state(svc.port);
    await svc.close();

    svc = await h.start({ dataDir: dir, historyLimit: 10, store: opts });
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${v.key}/${v.id}/${v.pin}`)).body).toBe('400');
    expect((await call(svc.port, 'GET', `/api/showdevicejson/${j.key}/${j.id}/${j.pin}`)).body).toBe('{"t":1}');
    expect((await call(svc.port, 'GET', '/api/generateapikey/a%40example.com/pw')).body).toBe(JSON.stringify({ APIKey: v.key }));
    const after = await state(svc.port);
    expect(after.devices.map((d) => [d.id, d.writes, d.points])).toEqual(before.devices.map((d) => [d.id, d.writes, d.points]));
    expect(after.devices[0]?.writes).toBe(400);
    expect(after.devices[0]?.points.map((p) => p[1])).toEqual([391, 392, 393, 394, 395, 396, 397, 398, 399, 400]);
    // numbering goes on after the highest id
    expect((await call(svc.port, 'GET', `/api/createuserdevice/${v.key}/next/None/Value`)).body).toContain('"DeviceID":3');
  });

  it('that fails keeps the old journal whole and in use: the write that set it off is acknowledged and kept', async () => {
    const dir = h.dir();
    const logs: string[] = [];
    let journalFd = -1;
    const io = {
      // Appends go to the journal's descriptor (the first one written); compaction writes a temp file.
      write: (fd: number, buf: Buffer, off: number, len: number): number => {
        if (journalFd < 0) journalFd = fd;
        if (fd !== journalFd) {
          fs.writeSync(fd, buf, off, 100);
          const e: NodeJS.ErrnoException = new Error('ENOSPC: injected');
          e.code = 'ENOSPC';
          throw e;
        }
        return fs.writeSync(fd, buf, off, len);
      },
    };
    let svc = await h.start({ dataDir: dir, historyLimit: 5, store: { scrypt: FAST, compactRatio: 2, compactMinBytes: 4096, io }, log: (l) => logs.push(l) });
    const v = await provision(svc.port, 'Value');
    for (let i = 1; i <= 200; i++) {
      expect((await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/${i}`)).status).toBe(200);
    }
    expect(logs.some((l) => l.startsWith('journal: compaction failed (ENOSPC); appending to the old journal'))).toBe(true);
    expect(fs.readdirSync(dir)).toEqual([JOURNAL_FILE]);
    await svc.close();
    expect(journal(dir).split('\n').filter((l) => l.includes('"op":"write"'))).toHaveLength(200);
    svc = await h.start({ dataDir: dir, historyLimit: 5 });
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${v.key}/${v.id}/${v.pin}`)).body).toBe('200');
    expect((await state(svc.port)).devices[0]?.writes).toBe(200);
  });

  it('left half-done by a crash (a temp file, no rename) leaves the journal as it was; the temp is removed at start', async () => {
    const dir = h.dir();
    let svc = await h.start({ dataDir: dir });
    const v = await provision(svc.port, 'Value');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/7`);
    await svc.close();
    fs.writeFileSync(path.join(dir, JOURNAL_FILE + '.tmp'), '{"op":"account","at":"x","email":"half');
    svc = await h.start({ dataDir: dir });
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${v.key}/${v.id}/${v.pin}`)).body).toBe('7');
    expect(fs.readdirSync(dir)).toEqual([JOURNAL_FILE]);
  });
});

describe('journal replay', () => {
  it('starts on a journal larger than the longest string the runtime can build (600 MB of valid lines), and compacts it', async () => {
    const dir = h.dir();
    const file = path.join(dir, JOURNAL_FILE);
    const at = '2026-01-01T00:00:00.000Z';
    const fd = fs.openSync(file, 'w', 0o600);
    try {
      // The account's hash is a stand-in; this test reads with the key only.
      fs.writeSync(fd, JSON.stringify({ op: 'account', at, email: 'big@example.com', salt: 's', hash: '0'.repeat(64), apiKey: 'k'.repeat(32) }) + '\n');
      fs.writeSync(fd, JSON.stringify({ op: 'device', at, id: 1, pin: 1234, name: 'big', crypto: 'None', format: 'Value', owner: 'big@example.com' }) + '\n');
      const line = Buffer.from(JSON.stringify({ op: 'write', at, id: 1, content: 'x'.repeat(1 << 20) }) + '\n');
      for (let i = 0; i < 600; i++) fs.writeSync(fd, line);
      fs.writeSync(fd, JSON.stringify({ op: 'write', at, id: 1, content: 'last' }) + '\n');
    } finally {
      fs.closeSync(fd);
    }
    expect(fs.statSync(file).size).toBeGreaterThan(0x1fffffe8);
    const logs: string[] = [];
    const svc = await h.start({ dataDir: dir, log: (l) => logs.push(l) });
    expect((await call(svc.port, 'GET', `/api/showdevicevalue/${'k'.repeat(32)}/1/1234`)).body).toBe('last');
    expect((await state(svc.port)).devices[0]?.writes).toBe(601);
    expect(fs.statSync(file).size).toBeLessThan(1 << 20);
    expect(logs.filter((l) => l.startsWith('journal:'))).toEqual([expect.stringMatching(/^journal: compacted from \d+ to \d+ bytes$/)]);
  }, 180_000);
});
