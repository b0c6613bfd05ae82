// The command line entry as a real child process: kill -9 right after an
// acknowledged write loses nothing, and SIGTERM stops it cleanly.
//
// The service runs as `node --import <tsx loader> host/service/main.ts` so the
// pid we signal is the server itself (the tsx launcher in node_modules/.bin
// would put a second process in between).

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { call, provision, removeDir, tempDir } from './helpers';

const root = path.resolve(__dirname, '../..');
const tsxLoader = path.join(path.dirname(fs.realpathSync(path.join(root, 'node_modules/.bin/tsx'))), 'loader.mjs');
const mainTs = path.join(root, 'host/service/main.ts');

interface Child {
  proc: ChildProcess;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) removeDir(d);
});

function startCli(dataDir: string): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', pathToFileURL(tsxLoader).href, mainTs, '--port', '0', '--data', dataDir, '--quiet'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proc);
  let out = '';
  let err = '';
  proc.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    proc.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) resolve({ proc, port: Number(m[1]), exited, stderr: () => err });
    });
    void exited.then(({ code }) => reject(new Error(`service exited (${code}) before listening: ${err}`)));
  });
}

describe('service CLI', () => {
  it('loses no acknowledged write when killed with SIGKILL right after a 200', async () => {
    const dir = tempDir();
    dirs.push(dir);
    let c = await startCli(dir);
    const v = await provision(c.port, 'Value', 'k@example.com', 'pw');
    const j = await provision(c.port, 'JSON', 'k@example.com', 'pw');
    const n = 25;
    for (let i = 1; i <= n; i++) {
      const r = await call(c.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/${i}.5`);
      expect(r.status).toBe(200);
    }
    const w = await call(c.port, 'POST', `/api/updatedevicejson/${j.key}/${j.id}/${j.pin}`, '{"last":true}');
    expect(w.status).toBe(200);
    c.proc.kill('SIGKILL'); // in the same tick as the acknowledgement
    expect(await c.exited).toEqual({ code: null, signal: 'SIGKILL' });

    c = await startCli(dir);
    expect((await call(c.port, 'GET', `/api/showdevicevalue/${v.key}/${v.id}/${v.pin}`)).body).toBe(`${n}.5`);
    expect((await call(c.port, 'GET', `/api/showdevicejson/${j.key}/${j.id}/${j.pin}`)).body).toBe('{"last":true}');
    const state = JSON.parse((await call(c.port, 'GET', '/dashboard/state')).body) as { devices: { id: number; writes: number }[] };
    expect(state.devices.find((d) => d.id === v.id)?.writes).toBe(n);
    c.proc.kill('SIGKILL');
    await c.exited;
  });

  it('stops cleanly with exit code 0 on SIGTERM and on SIGINT', async () => {
    const dir = tempDir();
    dirs.push(dir);
    for (const sig of ['SIGTERM', 'SIGINT'] as const) {
      const c = await startCli(dir);
      expect((await call(c.port, 'GET', '/dashboard/state')).status).toBe(200);
      c.proc.kill(sig);
      expect(await c.exited).toEqual({ code: 0, signal: null });
      expect(c.stderr()).toContain(`${sig}: stopping`);
    }
  });

  it('refuses an unknown option with exit code 2', async () => {
    const proc = spawn(process.execPath, ['--import', pathToFileURL(tsxLoader).href, mainTs, '--bogus'], { cwd: root, stdio: 'pipe' });
    children.push(proc);
    let err = '';
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((r) => proc.on('exit', (c) => r(c)));
    expect(code).toBe(2);
    expect(err).toContain('unknown option --bogus');
  });
});
