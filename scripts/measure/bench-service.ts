// Throughput of the local Device Data Service (not a test: it prints figures).
//
//   npx tsx scripts/measure/bench-service.ts [--seconds 3] [--clients 1,4,16]
//
// The service runs in a child process (so its memory figures are its own) on
// 127.0.0.1 with a temp data dir. Each client owns one Value device and writes
// in a loop, one new connection per request like the device does, for the
// given time per concurrency level. Every write is fsynced by the service, so
// the figures mostly measure the disk's fsync rate.

import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

import { startService } from '../../host/service/server';

interface Mem {
  rss: number;
  heapUsed: number;
  heapTotal: number;
}

type FromChild = { kind: 'ready'; port: number } | { kind: 'mem'; mem: Mem };

async function child(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dds-bench-'));
  const svc = await startService({ dataDir: dir });
  const send = (m: FromChild): void => {
    process.send?.(m);
  };
  process.on('message', (m: string) => {
    if (m === 'mem') {
      const u = process.memoryUsage();
      send({ kind: 'mem', mem: { rss: u.rss, heapUsed: u.heapUsed, heapTotal: u.heapTotal } });
    } else if (m === 'stop') {
      void svc.close().then(() => {
        fs.rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      });
    }
  });
  send({ kind: 'ready', port: svc.port });
}

function get(port: number, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: target, method: 'GET', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function ask(proc: ChildProcess, kind: FromChild['kind'], msg?: string): Promise<FromChild> {
  return new Promise((resolve) => {
    const on = (m: FromChild): void => {
      if (m.kind !== kind) return;
      proc.off('message', on);
      resolve(m);
    };
    proc.on('message', on);
    if (msg) proc.send(msg);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

const mb = (n: number): string => (n / 1048576).toFixed(1);

async function parent(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string, def: string): string => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] !== undefined ? (args[i + 1] as string) : def;
  };
  const seconds = Number(opt('--seconds', '3'));
  const levels = opt('--clients', '1,4,16').split(',').map(Number);
  if (!(seconds > 0) || levels.some((n) => !(n >= 1))) throw new Error('bad --seconds or --clients');

  const tsxLoader = path.join(path.dirname(fs.realpathSync('node_modules/.bin/tsx')), 'loader.mjs');
  const proc = fork(new URL(import.meta.url).pathname, ['--child'], {
    execArgv: ['--import', pathToFileURL(tsxLoader).href],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const ready = (await ask(proc, 'ready')) as { kind: 'ready'; port: number };
    const port = ready.port;
    const key = (JSON.parse((await get(port, '/api/generateapikey/bench%40example.com/pw')).body) as { APIKey: string }).APIKey;
    const devices: { id: number; pin: number }[] = [];
    for (let i = 0; i < Math.max(...levels); i++) {
      const d = JSON.parse((await get(port, `/api/createuserdevice/${key}/bench${i}/None/Value`)).body) as { DeviceID: number; DevicePIN: number };
      devices.push({ id: d.DeviceID, pin: d.DevicePIN });
    }
    const base = ((await ask(proc, 'mem', 'mem')) as { kind: 'mem'; mem: Mem }).mem;
    console.log(`service idle: rss ${mb(base.rss)} MiB, heap ${mb(base.heapUsed)}/${mb(base.heapTotal)} MiB; ${seconds} s per level, one connection per write, fsync per write`);
    console.log('');
    console.log('clients | writes | errors | writes/s | p50 ms | p99 ms | rss MiB | heap MiB');
    console.log('--------|--------|--------|----------|--------|--------|---------|---------');
    let n = 0;
    for (const clients of levels) {
      const latencies: number[] = [];
      let errors = 0;
      const started = performance.now();
      const deadline = started + seconds * 1000;
      await Promise.all(
        devices.slice(0, clients).map(async (d) => {
          while (performance.now() < deadline) {
            const t0 = performance.now();
            try {
              const r = await get(port, `/api/updatedevicevalue/${key}/${d.id}/${d.pin}/${(n++ % 1000) / 10}`);
              if (r.status === 200) latencies.push(performance.now() - t0);
              else errors++;
            } catch {
              errors++;
            }
          }
        }),
      );
      const elapsed = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const mem = ((await ask(proc, 'mem', 'mem')) as { kind: 'mem'; mem: Mem }).mem;
      console.log(
        [
          String(clients).padStart(7),
          String(latencies.length).padStart(6),
          String(errors).padStart(6),
          (latencies.length / elapsed).toFixed(0).padStart(8),
          percentile(latencies, 50).toFixed(2).padStart(6),
          percentile(latencies, 99).toFixed(2).padStart(6),
          mb(mem.rss).padStart(7),
          mb(mem.heapUsed).padStart(8),
        ].join(' | '),
      );
    }
  } finally {
    proc.send('stop');
    await new Promise((r) => proc.once('exit', r));
  }
}

if (process.argv.includes('--child')) {
  void child();
} else {
  parent().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
