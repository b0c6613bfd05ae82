// A failed journal append (EFBIG, ENOSPC, EIO half-way through a line) is cut
// back: the failed write is answered 500, and the next acknowledged write is
// on a line of its own, read back after a restart. Real requests against a
// running service whose journal writes fail on command, and a real child
// process under a file-size limit (RLIMIT_FSIZE).

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { JOURNAL_FILE } from '../../host/service/store';
import { call, provision, serviceHarness } from './helpers';

const h = serviceHarness();
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await h.cleanup();
});

function errno(code: string): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(`${code}: injected, write`);
  e.code = code;
  return e;
}

/** Journal file calls that fail on command: `failNext` makes the next line half-written, then `code`. */
function failingIo() {
  const io = {
    failNext: undefined as undefined | { code: string; partial: boolean },
    fsyncFails: undefined as undefined | string,
    truncateFails: 0,
    truncates: 0,
    write(fd: number, buf: Buffer, off: number, len: number): number {
      const f = io.failNext;
      if (f) {
        if (f.partial && len > 1) {
          io.failNext = { code: f.code, partial: false };
          return fs.writeSync(fd, buf, off, Math.floor(len / 2)); // half a line lands on disk
        }
        io.failNext = undefined;
        throw errno(f.code);
      }
      return fs.writeSync(fd, buf, off, len);
    },
    fsync(fd: number): void {
      if (io.fsyncFails) {
        const code = io.fsyncFails;
        io.fsyncFails = undefined;
        throw errno(code);
      }
      fs.fsyncSync(fd);
    },
    truncate(fd: number, len: number): void {
      io.truncates++;
      if (io.truncateFails > 0) {
        io.truncateFails--;
        throw errno('EIO');
      }
      fs.ftruncateSync(fd, len);
    },
  };
  return io;
}

function journalLines(dir: string): string[] {
  return fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8').split('\n');
}

/** Every line of the journal is one whole JSON record and it ends with a newline. */
function expectWholeLines(dir: string): void {
  const lines = journalLines(dir);
  expect(lines.pop()).toBe('');
  for (const l of lines) expect(() => JSON.parse(l) as unknown, l.slice(0, 80)).not.toThrow();
}

async function valueOf(port: number, d: { key: string; id: number; pin: number }): Promise<string> {
  const r = await call(port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}`);
  expect(r.status).toBe(200);
  return r.body;
}

describe('a failed journal append', () => {
  for (const code of ['EFBIG', 'ENOSPC', 'EIO']) {
    it(`(${code} half-way through a line) answers that write 500, and the next write is kept across a restart`, async () => {
      const dir = h.dir();
      const io = failingIo();
      const logs: string[] = [];
      let svc = await h.start({ dataDir: dir, store: { io }, log: (l) => logs.push(l) });
      const d = await provision(svc.port, 'Value');
      expect((await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/1`)).status).toBe(200);

      io.failNext = { code, partial: true };
      const failed = await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/${'2'.repeat(200)}`);
      expect(failed.status).toBe(500);
      expect(failed.body).not.toContain('2222');
      expect(io.truncates).toBe(1);
      expect(await valueOf(svc.port, d)).toBe('1'); // not applied
      expectWholeLines(dir); // cut back already: no half line waits for the next record

      expect((await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/3`)).status).toBe(200);
      expect(await valueOf(svc.port, d)).toBe('3');
      await svc.close();
      expectWholeLines(dir);

      svc = await h.start({ dataDir: dir, log: (l) => logs.push(l) });
      expect(await valueOf(svc.port, d)).toBe('3');
      const state = JSON.parse((await call(svc.port, 'GET', '/dashboard/state')).body) as { devices: { writes: number }[] };
      expect(state.devices[0]?.writes).toBe(2);
      expect(logs.filter((l) => l.startsWith('journal:'))).toEqual([]);
    });
  }

  it('that fails at fsync is cut back too: the record is not kept, and later writes are', async () => {
    const dir = h.dir();
    const io = failingIo();
    let svc = await h.start({ dataDir: dir, store: { io } });
    const d = await provision(svc.port, 'Value');
    io.fsyncFails = 'EIO';
    expect((await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/lost`)).status).toBe(500);
    expect((await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/kept`)).status).toBe(200);
    await svc.close();
    expect(journalLines(dir).filter((l) => l.includes('"op":"write"'))).toHaveLength(1);
    svc = await h.start({ dataDir: dir });
    expect(await valueOf(svc.port, d)).toBe('kept');
  });

  it('that cannot be cut back refuses every write (500) until the cut succeeds, then accepts them again', async () => {
    const dir = h.dir();
    const io = failingIo();
    const logs: string[] = [];
    let svc = await h.start({ dataDir: dir, store: { io }, log: (l) => logs.push(l) });
    const d = await provision(svc.port, 'Value');
    io.failNext = { code: 'ENOSPC', partial: true };
    io.truncateFails = 2; // the cut after the failure, and the one tried before the next write
    expect((await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/a`)).status).toBe(500);
    expect((await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/b`)).status).toBe(500);
    expect(logs.some((l) => l.includes('writes are refused until it can'))).toBe(true);
    // Nothing was appended after the half line while it stood.
    expect(journalLines(dir).filter((l) => l.includes('"content":"b"'))).toEqual([]);
    expect(await valueOf(svc.port, d)).toBe('');

    expect((await call(svc.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/c`)).status).toBe(200);
    expectWholeLines(dir);
    await svc.close();
    svc = await h.start({ dataDir: dir });
    expect(await valueOf(svc.port, d)).toBe('c');
  });

  it('of a new account or device is 500 and leaves neither behind', async () => {
    const dir = h.dir();
    const io = failingIo();
    let svc = await h.start({ dataDir: dir, store: { io } });
    io.failNext = { code: 'EFBIG', partial: true };
    expect((await call(svc.port, 'GET', '/api/generateapikey/a%40example.com/pw')).status).toBe(500);
    const d = await provision(svc.port, 'Value', 'a@example.com', 'other-pw'); // the account was not created
    io.failNext = { code: 'EFBIG', partial: true };
    expect((await call(svc.port, 'GET', `/api/createuserdevice/${d.key}/x/None/Value`)).status).toBe(500);
    const next = await call(svc.port, 'GET', `/api/createuserdevice/${d.key}/y/None/Value`);
    expect(next.status).toBe(200);
    await svc.close();
    expectWholeLines(dir);
    svc = await h.start({ dataDir: dir });
    const state = JSON.parse((await call(svc.port, 'GET', '/dashboard/state')).body) as { devices: { id: number; name: string }[] };
    expect(state.devices.map((x) => x.name)).toEqual(['dev-Value', 'y']);
  });

  it('keeps the record glued after a torn one in a journal written before the cut-back existed', async () => {
    const dir = h.dir();
    let svc = await h.start({ dataDir: dir });
    const d = await provision(svc.port, 'Value');
    await svc.close();
    const file = path.join(dir, JOURNAL_FILE);
    fs.appendFileSync(file, '{"op":"write","at":"2026-01-01T00:00:00.000Z","id":1,"content":"22');
    fs.appendFileSync(file, JSON.stringify({ op: 'write', at: '2026-01-01T00:00:01.000Z', id: d.id, content: 'acknowledged' }) + '\n');
    const logs: string[] = [];
    svc = await h.start({ dataDir: dir, log: (l) => logs.push(l) });
    expect(await valueOf(svc.port, d)).toBe('acknowledged');
    expect(logs.filter((l) => l.startsWith('journal:'))).toEqual([expect.stringMatching(/^journal: line 3 starts with \d+ bytes of a torn record; the record after them was kept$/)]);
  });
});

// The same probe as the issue's: a real process under a file-size limit.
const root = path.resolve(__dirname, '../..');
const tsxLoader = path.join(path.dirname(fs.realpathSync(path.join(root, 'node_modules/.bin/tsx'))), 'loader.mjs');
const mainTs = path.join(root, 'host/service/main.ts');
const hasPrlimit = spawnSync('prlimit', ['--version']).status === 0;

function startCli(dataDir: string): Promise<{ proc: ChildProcess; port: number; exited: Promise<unknown> }> {
  const proc = spawn(process.execPath, ['--import', pathToFileURL(tsxLoader).href, mainTs, '--port', '0', '--data', dataDir, '--quiet'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proc);
  let out = '';
  let err = '';
  proc.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  return new Promise((resolve, reject) => {
    proc.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) resolve({ proc, port: Number(m[1]), exited });
    });
    void exited.then(() => reject(new Error(`service exited before listening: ${err}`)));
  });
}

function prlimit(pid: number, fsize: string): void {
  const r = spawnSync('prlimit', ['--pid', String(pid), `--fsize=${fsize}`]);
  if (r.status !== 0) throw new Error(`prlimit: ${r.stderr.toString()}`);
}

describe.skipIf(!hasPrlimit)('a service process under a file-size limit', () => {
  it('answers the write that hits the limit 500, and the next acknowledged write survives kill -9 and a restart', async () => {
    const dir = h.dir();
    let c = await startCli(dir);
    const d = await provision(c.port, 'Value');
    expect((await call(c.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/1`)).status).toBe(200);
    const size = fs.statSync(path.join(dir, JOURNAL_FILE)).size;
    prlimit(c.proc.pid as number, `${size + 40}:unlimited`); // the next record stops 40 bytes in: EFBIG
    expect((await call(c.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/${'2'.repeat(100)}`)).status).toBe(500);
    prlimit(c.proc.pid as number, 'unlimited:unlimited');
    expect((await call(c.port, 'GET', `/api/updatedevicevalue/${d.key}/${d.id}/${d.pin}/3`)).status).toBe(200);
    c.proc.kill('SIGKILL');
    await c.exited;
    expectWholeLines(dir);

    c = await startCli(dir);
    expect(await valueOf(c.port, d)).toBe('3');
    c.proc.kill('SIGKILL');
    await c.exited;
  });
});
