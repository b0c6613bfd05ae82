// The configuration device on a whole board against the real local
// service: a document written to the device is applied (in place where the
// checker fits beside the agent, else through a restart into a boot that
// checks it), and the board says so in its health report and status(); the
// faults: a document that is invalid, one that cuts delivery (the trial
// takes it back), one that changes every 10 s, the service unreachable
// during the apply, safe mode, and a power cut anywhere in the apply. In
// every case no reading is lost: the outbox ends empty with nothing dropped
// or rejected, and the JSON device's readings arrive in order, none missing.
import { describe, expect, it } from 'vitest';
import { healthReport } from '../../src/agent/health';
import { canonical, docCrc, readSeen } from '../../src/agent/remote-state';
import type { AgentConfig } from '../../src/config/types';
import { crc32 } from '../../src/queue/crc32';
import { testConfig } from '../fakes/config';
import { provisionControl, provisionHealth, setControl } from '../fakes/provision';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../../host/service/server';
import type { FaultOptions, WriteEvent } from '../../host/service/server';
import type { MemoryFileStore } from '../fakes/files';
import { Board, DEAD_URL, provisioned, sharedService, until } from './harness';
import type { Booted } from './harness';
import { docOf } from '../fakes/remote-doc';

const service = sharedService();

const NO_ROOM = 'cold code check: not enough free heap now (41000 B free, about 58821 B needed); try again in a minute, or after maintenance(), which boots without the agent';

/** The document with every sensor sampled every `ms`. */
const every = (c: AgentConfig, ms: number): string => docOf(c, (d) => (d.sensors as Record<string, unknown>[]).forEach((s) => (s.intervalMs = ms)));

/** A board with health reports every minute and a configuration device that holds its configuration, read every minute. */
async function remoteBoard(lkgRevertMs = 1800000): Promise<{ board: Board; cfg: AgentConfig; dev: { id: number; pin: number } }> {
  const board = new Board();
  const cfg = await provisionHealth(service.svc.url, await provisioned(service.svc.url, testConfig()), 60000);
  cfg.agent.lkgRevertMs = lkgRevertMs;
  const dev = await provisionControl(service.svc.url, cfg, 'remote', 'JSON', docOf(cfg));
  cfg.remote = { id: dev.id, pin: dev.pin, pollMs: 60000 };
  board.save(cfg);
  return { board, cfg, dev };
}

const write = (cfg: AgentConfig, dev: { id: number; pin: number }, doc: string): Promise<void> => setControl(service.svc.url, cfg.service.apiKey, dev, doc, 'JSON');

/** The last health report the service holds from `cfg`'s board. */
function lastReport(cfg: AgentConfig): Record<string, unknown> {
  const r = service.writes.filter((w) => w.deviceId === cfg.health.id);
  return JSON.parse(r[r.length - 1]!.content) as Record<string, unknown>;
}

const crcOf = (b: Uint8Array | undefined): string => crc32(b!, 0, b!.length).toString(16);

/** Nothing lost: the outbox empty, nothing dropped or rejected, and the JSON device's readings (seq) delivered in order with no gap. */
function nothingLost(b: Booted, cfg: AgentConfig): void {
  expect(b.rt.queue()!.stats()).toMatchObject({ depth: 0, dropped: 0, rejected: 0 });
  const tj = cfg.devices[1]!.deviceId;
  const seqs = service.writes.filter((w) => w.deviceId === tj).flatMap((w) => [...w.content.matchAll(/"seq":(\d+)/g)].map((m) => Number(m[1])));
  expect(seqs.length).toBeGreaterThan(3);
  const uniq = [...new Set(seqs)];
  // Sent twice only at a restart's edge; never one missing.
  expect(uniq).toEqual([...uniq].sort((x, y) => x - y));
  const all = new Set(uniq);
  for (let s = uniq[0]!; s <= uniq[uniq.length - 1]!; s++) if (!all.has(s)) {
    // A seq of another device's record (Value, XML): not carried by tj.
    expect(service.writes.some((w) => w.deviceId !== tj && w.deviceId !== cfg.health.id)).toBe(true);
  }
}

/** The remote line of status(), continuation lines joined. */
function remoteLine(b: Booted): string {
  const n = b.out().length;
  b.cmd.status!();
  return b.out().slice(n).join('\n').replace(/\n {2}/g, ' ').split('\n').find((l) => l.startsWith('remote '))!;
}

describe('a document written to the configuration device', () => {
  it('is applied through a restart into a boot that checks it; the health report then carries its CRC and configSource service', async () => {
    const { board, cfg, dev } = await remoteBoard();
    let room = false;
    const b = board.boot({ refuse: (n) => (n === 'check' && !room ? NO_ROOM : undefined) });
    await b.run(10000);
    // The first read: the document is the board's own configuration.
    expect(readSeen(board.files)).toMatchObject({ id: dev.id, outcome: 'unchanged', ignored: [] });
    expect(b.p.reboots).toBe(0);
    const doc = every(cfg, 20000);
    await write(cfg, dev, doc);
    await b.run(60000);
    // The checker had no room beside the agent: kept, and a restart asked for.
    expect(b.p.reboots).toBe(1);
    expect(b.out()).toContain('remote: document ' + docCrc(canonical(doc)) + ': ' + NO_ROOM + '; restarting to check it without the agent');
    expect(board.files.contents('remote.json')).toBeDefined();
    room = true;
    const c = board.boot();
    expect(c.rt.mode()).toBe('console-only');
    expect(c.rt.why()).toBe('checking a configuration from the service; the agent starts after a restart');
    await c.run(70000);
    expect(c.rt.mode()).toBe('running');
    expect(c.rt.config().sensors.map((s) => s.intervalMs)).toEqual([20000, 20000, 20000]);
    expect(board.files.contents('remote.json')).toBeUndefined();
    expect(board.files.contents('config.new')).toBeUndefined();
    const r = lastReport(cfg);
    expect(r.config).toBe(crcOf(board.files.contents('config.json')));
    expect(r.configSource).toBe('service');
    expect(r.remote).toEqual({ id: dev.id, crc: docCrc(canonical(doc)), outcome: 'applied', ignored: [], atS: expect.any(Number) });
    expect(remoteLine(c)).toMatch(new RegExp('^remote +device ' + dev.id + ', every 60 s: document ' + docCrc(canonical(doc)) + ' applied, seen \\d+ (s|min) ago; running config ' + String(r.config) + ' from service$'));
    await c.run(30000);
    nothingLost(c, cfg);
    c.rt.stop();
  });

  it('is applied in place where the checker fits beside the agent, without the keys never taken from the service', async () => {
    const { board, cfg, dev } = await remoteBoard();
    const b = board.boot();
    await b.run(10000);
    const doc = docOf(cfg, (d) => {
      (d.sensors as Record<string, unknown>[]).forEach((s) => (s.intervalMs = 15000));
      d.wifi = { ssid: 'elsewhere', password: 'not-this-one' };
      d.service = { url: 'http://attacker.example', apiKey: 'k'.repeat(32) };
      d.remote = { id: 1, pin: 1 };
    });
    await write(cfg, dev, doc);
    await b.run(60000);
    expect(b.p.reboots).toBe(0);
    const now = b.rt.config();
    expect(now.sensors.map((s) => s.intervalMs)).toEqual([15000, 15000, 15000]);
    expect(now.wifi).toEqual(cfg.wifi);
    expect(now.service).toEqual(cfg.service);
    expect(now.remote).toEqual(cfg.remote);
    expect(readSeen(board.files)).toMatchObject({ outcome: 'applied', ignored: ['wifi.password', 'wifi.ssid', 'service.apiKey', 'service.url', 'remote.id', 'remote.pin'] });
    await b.run(65000);
    expect(lastReport(cfg)).toMatchObject({ configSource: 'service', remote: { outcome: 'applied', ignored: ['wifi.password', 'wifi.ssid', 'service.apiKey', 'service.url', 'remote.id', 'remote.pin'] } });
    // Proven by its first delivery: no longer on trial.
    expect(board.files.contents('config.new')).toBeUndefined();
    nothingLost(b, cfg);
    b.rt.stop();
  });
});

describe("provision(email, password, 'remote', 'JSON')", () => {
  it('makes the device, sets remote.id and remote.pin, and writes the running configuration into it without secrets: the first read changes nothing', async () => {
    const cfg = await provisioned(service.svc.url, testConfig());
    const board = new Board();
    board.save(cfg);
    const b = board.boot();
    b.cmd.provision!('rt@example.com', 'pw-rt-0001', 'remote', 'XML');
    expect(b.p.errors).toEqual(['provision: the configuration device (remote) is a JSON device']);
    b.cmd.provision!('rt@example.com', 'pw-rt-0001', 'remote', 'JSON');
    await until(() => b.out().some((l) => l.startsWith('remote.pin set')), 'the settings');
    const r = b.rt.pending().remote;
    expect(r.id).toBeGreaterThan(0);
    // The console wraps a long line; its continuations start with two spaces.
    expect(b.out().join('\n').replace(/\n {2}/g, ' ')).toContain('provision: the running configuration (without wifi.*, service.*, remote.*) is its first document');
    const got = await fetch(service.svc.url + '/api/showdevicejson/' + cfg.service.apiKey + '/' + r.id + '/' + r.pin).then((x) => x.text());
    expect(got).not.toContain(cfg.service.apiKey);
    expect(got).not.toContain(cfg.wifi.password);
    expect(JSON.parse(got)).toEqual(JSON.parse(docOf(cfg)));
    // Saved: the agent reads it, and it is the running configuration already (no checker needed).
    b.cmd.save!();
    await b.run(10000);
    expect(readSeen(board.files)).toMatchObject({ id: r.id, outcome: 'unchanged', ignored: [] });
    expect(b.loads['check']).toBeUndefined();
    // Saved at the console: the report says so.
    expect(JSON.parse(healthReport(b.rt))).toMatchObject({ configSource: 'console', remote: { id: r.id, outcome: 'unchanged' } });
    expect(b.p.errors).toHaveLength(1);
    b.rt.stop();
  });
});

describe('faults', () => {
  it('an invalid document is refused once, in one line naming the key and the rule, and not tried again, even after a restart', async () => {
    const { board, cfg, dev } = await remoteBoard();
    const b = board.boot();
    await b.run(10000);
    const doc = docOf(cfg, (d) => ((d.sensors as Record<string, unknown>[])[0]!.intervalMs = 5));
    await write(cfg, dev, doc);
    await b.run(190000);
    const line = 'remote: document ' + docCrc(canonical(doc)) + ' refused: sensor.temp.intervalMs: must be a whole number from 1000 to 86400000';
    expect(b.out().filter((l) => l.includes('refused'))).toEqual([line]);
    expect(b.loads['check']).toBe(1);
    expect(b.rt.config().sensors[0]!.intervalMs).toBe(10000);
    expect(lastReport(cfg).remote).toMatchObject({ outcome: 'refused: sensor.temp.intervalMs: must be a whole number from 1000 to 86400000' });
    b.rt.stop();
    const c = board.boot();
    await c.run(130000);
    expect(c.out().filter((l) => l.includes('refused'))).toEqual([]);
    expect(c.loads['check']).toBeUndefined();
    nothingLost(c, cfg);
    c.rt.stop();
  });

  it('a valid document that cuts delivery (a wrong device id) is reverted by the trial; its readings wait and then go', async () => {
    const { board, cfg, dev } = await remoteBoard(60000);
    const b = board.boot();
    // Delivered: the configuration is the last known good one.
    await b.run(10000);
    const doc = docOf(cfg, (d) => (d.devices as Record<string, unknown>[]).forEach((x, i) => (x.deviceId = 999990 + i)));
    await write(cfg, dev, doc);
    await b.run(60000);
    expect(b.rt.config().devices[1]!.deviceId).toBe(999991);
    // Held for a minute: gone back to the last known good one.
    await b.run(75000);
    expect(b.out()).toContain('config: the changed configuration delivered nothing for 1 min; going back to the last known good one');
    expect(b.rt.config().devices[1]!.deviceId).toBe(cfg.devices[1]!.deviceId);
    await b.run(65000);
    expect(lastReport(cfg).remote).toMatchObject({ crc: docCrc(canonical(doc)), outcome: 'reverted after 1 min without a delivery' });
    expect(remoteLine(b)).toContain('reverted after 1 min without a delivery');
    // The same document is not tried again.
    expect(b.out().filter((l) => l.includes(' applied'))).toHaveLength(1);
    nothingLost(b, cfg);
    b.rt.stop();
  });

  // Written every 10 s for 7 minutes, read every minute: each read sees a new document.
  it.each([
    ['in place (the checker fits beside the agent)', false],
    ['through restarts into boots that check it (it does not)', true],
  ])('a document that changes every 10 s is applied at most once a period: %s', async (_how, restarts) => {
    const { board, cfg, dev } = await remoteBoard();
    const refuse = (n: string): string | undefined => (restarts && n === 'check' && b.rt.agent() ? NO_ROOM : undefined);
    const applied: number[] = [];
    // Each boot's clock starts at 0: the time of an apply is the boot's start plus its uptime.
    let t = 0;
    let start = 0;
    const boot = (): Booted => {
      const x = board.boot({ refuse });
      const log = x.p.log;
      start = t;
      x.p.log = { info: (l) => (l.includes(' applied') && applied.push(start + x.time.clock.uptimeMs()), log.info(l)), error: (l) => log.error(l) };
      return x;
    };
    let b = boot();
    let reboots = 0;
    for (; t < 420000; t += 1000) {
      if (t % 10000 === 0) await write(cfg, dev, every(cfg, 11000 + 1000 * ((t / 10000) % 7)));
      await b.run(1000);
      if (b.p.reboots) {
        reboots++;
        b = boot();
      }
    }
    expect(applied.length).toBeGreaterThanOrEqual(3);
    // 420 s at one a minute, the first at the start.
    expect(applied.length).toBeLessThanOrEqual(8);
    for (let i = 1; i < applied.length; i++) expect(applied[i]! - applied[i - 1]!).toBeGreaterThanOrEqual(60000);
    // One restart for each document checked without the agent, no more.
    expect(reboots).toBe(restarts ? applied.length : 0);
    await b.run(30000);
    nothingLost(b, cfg);
    b.rt.stop();
  });

  it('in safe mode a kept document is not applied', () => {
    const board = new Board();
    const cfg = testConfig(DEAD_URL);
    cfg.agent.safeModeBoots = 2;
    cfg.remote = { id: 77, pin: 1, pollMs: 60000 };
    board.save(cfg);
    board.boot().rt.stop();
    board.boot().rt.stop();
    const doc = canonical(every(cfg, 20000));
    board.files.write('remote.json', new TextEncoder().encode(doc));
    const b = board.boot();
    expect(b.rt.mode()).toBe('safe');
    return b.run(5000).then(() => {
      expect(b.rt.config().sensors[0]!.intervalMs).toBe(10000);
      expect(board.files.contents('remote.json')).toBeDefined();
      expect(b.loads).toEqual({});
      b.rt.stop();
    });
  });

  it('the service unreachable from the read on, through the apply: the readings wait on flash and all go once it is back, the change proven', async () => {
    // A service of its own, whose every request can be dropped unanswered.
    const faults: FaultOptions = {};
    const dir = mkdtempSync(join(tmpdir(), 'rt-remote-'));
    const svc = await startService({ dataDir: dir, log: () => undefined, faults });
    const writes: WriteEvent[] = [];
    svc.events.on('write', (w: WriteEvent) => writes.push(w));
    try {
      const board = new Board();
      const cfg = await provisioned(svc.url, testConfig());
      cfg.agent.lkgRevertMs = 1800000;
      // Two minutes of failures put the next retry up to 128 s away, by the jitter's draw; a cap of 30 s keeps
      // one retry inside the window after the service is back, whatever the draw.
      cfg.agent.backoffCapMs = 30000;
      const dev = await provisionControl(svc.url, cfg, 'remote', 'JSON', docOf(cfg));
      cfg.remote = { id: dev.id, pin: dev.pin, pollMs: 60000 };
      board.save(cfg);
      const b = board.boot();
      await b.run(10000);
      await setControl(svc.url, cfg.service.apiKey, dev, every(cfg, 20000), 'JSON');
      // From the moment the document is read, nothing gets through: not even the new configuration's first reading.
      const log = b.p.log;
      b.p.log = { info: (l) => (l.includes(' applied') && (faults.dropShare = 1), log.info(l)), error: (l) => log.error(l) };
      await b.run(60000);
      expect(faults.dropShare).toBe(1);
      const before = writes.length;
      await b.run(120000);
      expect(writes.length).toBe(before);
      expect(b.rt.config().sensors[0]!.intervalMs).toBe(20000);
      expect(b.rt.queue()!.stats().depth).toBeGreaterThan(5);
      // On trial, waiting for its first delivery.
      expect(board.files.contents('config.new')).toBeDefined();
      faults.dropShare = 0;
      await b.run(90000);
      expect(board.files.contents('config.new')).toBeUndefined();
      expect(b.rt.queue()!.stats()).toMatchObject({ depth: 0, dropped: 0, rejected: 0 });
      const tj = cfg.devices[1]!.deviceId;
      const seqs = writes.filter((w) => w.deviceId === tj).flatMap((w) => [...w.content.matchAll(/"seq":(\d+)/g)].map((m) => Number(m[1])));
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      b.rt.stop();
    } finally {
      await svc.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A board whose flash is a copy of `files` (what a power cut leaves is tried on each copy). */
function copyOf(files: MemoryFileStore): Board {
  const b = new Board();
  const dirs = [...new Set(files.paths().flatMap((p) => p.split('/').slice(0, -1).map((_, i, a) => a.slice(0, i + 1).join('/'))))].sort((x, y) => x.length - y.length);
  for (const d of dirs) b.files.mkdir(d);
  for (const p of files.paths()) b.files.write(p, files.contents(p)!);
  return b;
}

describe('a power cut while a document is applied', () => {
  it('at every step of the boot that checks it: the board comes up in the new configuration on trial, or the old one and applies it again; no reading lost', async () => {
    // What the running agent leaves when the checker has no room beside it:
    // readings on flash (the service is away), the document kept, a restart.
    const cfg = testConfig(DEAD_URL);
    cfg.agent.lkgRevertMs = 1800000;
    cfg.remote = { id: 77, pin: 7, pollMs: 60000 };
    const base = new Board();
    base.save(cfg);
    const b1 = base.boot();
    await b1.run(30000);
    const queued = b1.rt.queue()!.peek(1000).map((r) => r.seq);
    expect(queued.length).toBeGreaterThan(5);
    b1.rt.stop();
    const doc = canonical(every(cfg, 20000));
    base.files.write('remote.json', new TextEncoder().encode(doc));
    base.files.write('remote.seen', new TextEncoder().encode(JSON.stringify({ id: 77, crc: docCrc(doc), outcome: 'pending check at next boot', ignored: [], at: null })));

    // The boot that checks it, once without a cut: where each step of its writes ends, in the store's units.
    const dry = copyOf(base.files);
    const d = dry.boot();
    const marks: number[] = [];
    let used = 0;
    const f = dry.files as unknown as Record<string, (...a: unknown[]) => unknown>;
    for (const op of ['write', 'append', 'rename', 'remove']) {
      const was = f[op]!.bind(dry.files);
      f[op] = (...a: unknown[]) => {
        const there = op === 'remove' ? dry.files.contents(String(a[0])) !== undefined : true;
        const r = was(...a);
        used += op === 'write' || op === 'append' ? (a[1] as Uint8Array).length : there ? 1 : 0;
        marks.push(used);
        return r;
      };
    }
    await d.run(1000);
    d.rt.stop();
    expect(used).toBeGreaterThan(1000);
    const cuts = [...new Set(marks.flatMap((m, i) => [m, m + 1, Math.floor((m + (marks[i - 1] ?? 0)) / 2)]).concat([0]))].filter((k) => k < used).sort((x, y) => x - y);
    expect(cuts.length).toBeGreaterThan(20);

    for (const k of cuts) {
      const board = copyOf(base.files);
      const b2 = board.boot();
      board.files.powerCutAfter(k);
      await b2.run(1000).catch(() => undefined);
      expect(board.files.isDark()).toBe(true);
      board.files.powerOn();
      const b3 = board.boot();
      await b3.run(1000);
      const at = 'cut after ' + k + ' of ' + used + ' units';
      expect(b3.rt.mode(), at).toBe('running');
      expect(b3.rt.config().sensors.map((s) => s.intervalMs), at).toEqual([20000, 20000, 20000]);
      // On trial: delivering nothing, it would go back.
      expect(board.files.contents('config.new'), at).toBeDefined();
      expect(board.files.contents('remote.json'), at).toBeUndefined();
      const q = b3.rt.queue()!;
      expect(q.peek(1000).map((r) => r.seq).slice(0, queued.length), at).toEqual(queued);
      expect(q.stats().dropped, at).toBe(0);
      b3.rt.stop();
    }
  });
});

