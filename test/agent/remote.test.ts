// The configuration device (src/agent/remote.ts, each read's code
// src/agent/remote-read.ts, a new document's src/agent/remote-apply.ts, what
// the reports say src/agent/remote-state.ts)
// against a scripted service client and a board of fakes: a document's
// content and CRC, the keys never taken from the service, the merge, a
// document acted on once per change (and not again after a restart), the
// checker loaded only for a new document, and what each outcome leaves on
// flash.
import { describe, expect, it } from 'vitest';
import { startRemote } from '../../src/agent/remote';
import type { RemoteJob, RemoteRt } from '../../src/agent/remote';
import { applyRemote, mergeOver, takeOut } from '../../src/agent/remote-apply';
import { readRemote } from '../../src/agent/remote-read';
import { canonical, configOrigin, docCrc, noteSource, readSeen, remoteShown } from '../../src/agent/remote-state';
import type { LoadCold } from '../../src/agent/outputs';
import type { Uplink, WriteOutcome } from '../../src/agent/uplink';
import { CODEC } from '../../src/config/codec';
import { createConfigStore } from '../../src/config/store';
import type { AgentConfig } from '../../src/config/types';
import type { Call, Outcome, ServiceClient } from '../../src/service/client';
import { testConfig } from '../fakes/config';
import { createMemoryFileStore } from '../fakes/files';
import type { MemoryFileStore } from '../fakes/files';
import { createFakeTime } from '../fakes/time';
import { docOf } from '../fakes/remote-doc';

const DATE = 'Sun, 22 Nov 2026 08:05:00 GMT';

function remoteConfig(): AgentConfig {
  const c = testConfig();
  c.remote = { id: 40, pin: 4040, pollMs: 60000 };
  c.agent.lkgRevertMs = 1800000;
  return c;
}

const text = (b: Uint8Array | undefined): string | undefined => (b ? new TextDecoder().decode(b) : undefined);

/**
 * A board of fakes with `cfg` saved and running: apply() saves through the
 * real store and runs the change; the service answers each read with
 * `doc()`; loads are counted, `refuse` says why one would not load.
 */
function board(cfg = remoteConfig(), files: MemoryFileStore = createMemoryFileStore()) {
  const store = createConfigStore({ files, codec: () => CODEC, checker: 'test' });
  const e = store.save(cfg);
  if (e) throw new Error(e);
  const info: string[] = [];
  const errors: string[] = [];
  const applied: AgentConfig[] = [];
  const restarts: string[] = [];
  let running = store.load().config;
  const time = createFakeTime();
  const rt: RemoteRt = {
    p: { files, log: { info: (l: string) => void info.push(l), error: (l: string) => void errors.push(l) } } as unknown as RemoteRt['p'],
    config: () => running,
    apply(next) {
      const e = store.save(next);
      if (e) return e;
      running = next;
      applied.push(next);
      return undefined;
    },
    restart: (why) => void restarts.push(why),
  };
  const loads: Record<string, number> = {};
  const m: { refuse?: string; doc: () => string | Outcome<string>; reads: number } = { doc: () => '{}', reads: 0 };
  const load: LoadCold = <T>(name: string) => {
    loads[name] = (loads[name] || 0) + 1;
    if (m.refuse && name === 'check') return { ok: false as const, error: m.refuse };
    const v = name === 'check' ? CODEC : name === 'remote-apply' ? applyRemote : name === 'remote-read' ? readRemote : undefined;
    return v ? { ok: true as const, value: v as T } : { ok: false as const, error: 'cold code ' + name + ': not in this build' };
  };
  const client: Pick<ServiceClient, 'call'> = {
    call: async <T>(c: Call<T>): Promise<Outcome<T>> => {
      m.reads++;
      const a = m.doc();
      if (typeof a !== 'string') return a as unknown as Outcome<T>;
      const f = c.read(a, a, c.secrets);
      return f.ok ? { kind: 'ok', status: 200, value: f.value, note: f.note, bytesSent: 100, date: DATE } : { kind: 'reject', reason: f.error, bytesSent: 100 };
    },
  };
  /** A poll as the running agent's job makes it (a fresh one: a new boot). */
  const job = (): RemoteJob => ({ due: false, run: () => Promise.resolve({ kind: 'ok', status: 200, bytesSent: 0 }), stop: () => undefined });
  const read = (x: RemoteJob): Promise<WriteOutcome> => readRemote(rt, load, x, client);
  return { rt, files, store, info, errors, applied, restarts, loads, m, load, client, job, read, time, running: () => running };
}

describe('a document as content', () => {
  it('has one CRC whatever its spacing, and another for any other content', () => {
    const a = canonical('{ "health": {"pin": 2, "id": 1}, "agent": { "backoffBaseMs": 3000 } }\n');
    expect(a).toBe('{"agent":{"backoffBaseMs":3000},"health":{"id":1,"pin":2}}');
    expect(docCrc(canonical('{"agent":{"backoffBaseMs":3000},"health":{"id":1,"pin":2}}'))).toBe(docCrc(a));
    // Lists keep their order: the sensors' order is the configuration's.
    expect(canonical('{"sensors":[{"name":"b"},{"name":"a"}]}')).toBe('{"sensors":[{"name":"b"},{"name":"a"}]}');
    expect(docCrc(canonical('{"agent":{"backoffBaseMs":3001},"health":{"id":1,"pin":2}}'))).not.toBe(docCrc(a));
    expect(docCrc(a)).toMatch(/^[0-9a-f]{1,8}$/);
    // Text that is not JSON is kept as it came (trimmed): its CRC still tells one from another.
    expect(canonical('  not json \n')).toBe('not json');
  });
});

describe('the keys never taken from the service', () => {
  it('are taken out and named: wifi.*, service.url, service.apiKey, remote.*', () => {
    const doc: Record<string, unknown> = {
      wifi: { ssid: 'other-net', password: 'other-pass' },
      service: { url: 'http://elsewhere.example', apiKey: 'k'.repeat(32), extra: 1 },
      remote: { id: 9, pin: 9 },
      agent: { backoffBaseMs: 3000 },
    };
    expect(takeOut(doc)).toEqual(['wifi.ssid', 'wifi.password', 'service.url', 'service.apiKey', 'remote.id', 'remote.pin']);
    // What else a section holds stays, for the checker to name.
    expect(doc).toEqual({ service: { extra: 1 }, agent: { backoffBaseMs: 3000 } });
  });

  it('a section that is not an object goes whole', () => {
    const doc: Record<string, unknown> = { wifi: 'x', remote: null, health: { id: 3 } };
    expect(takeOut(doc)).toEqual(['wifi', 'remote']);
    expect(doc).toEqual({ health: { id: 3 } });
  });
});

describe('the merge', () => {
  it('goes key by key into sections; a list or a value replaces', () => {
    const base = { agent: { backoffBaseMs: 2000, outboxBytes: 8192 }, sensors: [{ name: 'a' }, { name: 'b' }], board: 'pico-w' };
    const got = mergeOver(base, { agent: { backoffBaseMs: 3000 }, sensors: [{ name: 'c' }], health: { id: 4 } });
    expect(got).toEqual({ agent: { backoffBaseMs: 3000, outboxBytes: 8192 }, sensors: [{ name: 'c' }], board: 'pico-w', health: { id: 4 } });
  });

  it('keeps __proto__ an own key (the checker names it) and the prototype as it was', () => {
    const base: Record<string, unknown> = {};
    const got = mergeOver(base, JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.keys(got)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(CODEC.check(got)).toMatchObject({ ok: false, errors: ['__proto__: unknown key'] });
  });
});

describe('a read of the configuration device', () => {
  it('acts on a document once per change: the checker, the outcome and its line once, however often it is read', async () => {
    const b = board();
    b.m.doc = () => docOf(b.running(), (d) => ((d.agent as Record<string, unknown>).backoffBaseMs = 3000));
    const x = b.job();
    await b.read(x);
    await b.read(x);
    await b.read(x);
    expect(b.m.reads).toBe(3);
    // What a new document does, and the checker, once; the reads that find it again load nothing.
    expect(b.loads).toEqual({ 'remote-apply': 1, check: 1 });
    expect(b.applied).toHaveLength(1);
    expect(b.applied[0]!.agent.backoffBaseMs).toBe(3000);
    expect(b.info.filter((l) => l.includes(' applied'))).toHaveLength(1);
    // Another boot's first read of it: remote.seen says it is settled; nothing loaded, nothing written.
    b.files.resetCounts();
    await b.read(b.job());
    expect(b.loads).toEqual({ 'remote-apply': 1, check: 1 });
    expect(b.files.counts).toMatchObject({ writes: 0, renames: 0 });
    // A new document is acted on again.
    b.m.doc = () => docOf(b.running(), (d) => ((d.agent as Record<string, unknown>).backoffBaseMs = 4000));
    await b.read(x);
    expect(b.loads).toEqual({ 'remote-apply': 2, check: 2 });
    expect(b.applied.map((c) => c.agent.backoffBaseMs)).toEqual([3000, 4000]);
  });

  it('a valid change is saved on trial, named as the service\'s, and the next boot waits a period for its first read', async () => {
    const b = board();
    const doc = docOf(b.running(), (d) => (d.sensors as Record<string, unknown>[]).forEach((s) => (s.intervalMs = 20000)));
    b.m.doc = () => doc;
    const x = b.job();
    await b.read(x);
    expect(b.running().sensors.map((s) => s.intervalMs)).toEqual([20000, 20000, 20000]);
    expect(text(b.files.contents('config.new'))).toBe('1');
    expect(b.files.contents('remote.wait')).toBeDefined();
    const origin = configOrigin(b.files);
    expect(origin.source).toBe('service');
    const seen = readSeen(b.files)!;
    expect(seen).toMatchObject({ id: 40, crc: docCrc(canonical(doc)), outcome: 'applied', ignored: [], at: Date.UTC(2026, 10, 22, 8, 5), cfg: origin.crc, min: 30 });
    expect(b.info).toContain('remote: document ' + seen.crc + ' applied; on trial until it delivers');
    // The first read of the next poll (a new boot) waits a whole period.
    const time = createFakeTime();
    const wakes: number[] = [];
    const up: Pick<Uplink, 'add' | 'remove' | 'wake'> = { add: () => undefined, remove: () => undefined, wake: () => void wakes.push(time.clock.uptimeMs()) };
    const next = startRemote(up, b.client, b.running(), { files: b.files, timers: time.timers, log: b.rt.p.log }, b.load, b.rt);
    expect(next.due).toBe(false);
    await time.advance(59999);
    expect(next.due).toBe(false);
    await time.advance(1);
    expect(next.due).toBe(true);
    expect(wakes).toEqual([60000]);
    // The read it makes lets the wait go: a boot after it reads at once.
    await next.run();
    expect(b.files.contents('remote.wait')).toBeUndefined();
    next.stop();
    const third = startRemote(up, b.client, b.running(), { files: b.files, timers: time.timers, log: b.rt.p.log }, b.load, b.rt);
    expect(third.due).toBe(true);
    third.stop();
  });

  it('a document equal to the running configuration, once the ignored keys are out, changes nothing', async () => {
    const b = board();
    b.m.doc = () => docOf(b.running(), (d) => (d.wifi = { ssid: 'elsewhere' }));
    await b.read(b.job());
    expect(b.applied).toEqual([]);
    expect(b.restarts).toEqual([]);
    expect(readSeen(b.files)).toMatchObject({ outcome: 'unchanged', ignored: ['wifi.ssid'] });
    expect(b.files.contents('config.new')).toBeUndefined();
  });

  it('a blank device ({}) or one with only ignored keys changes nothing without loading the checker', async () => {
    const b = board();
    await b.read(b.job());
    expect(readSeen(b.files)).toMatchObject({ outcome: 'unchanged', ignored: [] });
    b.m.doc = () => '{"service": {"url": "http://elsewhere.example"}}';
    await b.read(b.job());
    expect(readSeen(b.files)).toMatchObject({ outcome: 'unchanged', ignored: ['service.url'] });
    expect(b.loads).toEqual({ 'remote-apply': 2 });
  });

  it('an invalid document is refused in one line naming the key and the rule, once, and not tried again after a restart', async () => {
    const b = board();
    b.m.doc = () => '{"sensors": [{"name": "temp", "kind": "temperature", "intervalMs": 5}], "agent": {"bogus": 1}}';
    await b.read(b.job());
    const seen = readSeen(b.files)!;
    expect(seen.outcome).toMatch(/^refused: [^\n]*\(and \d+ more\)$/);
    expect(seen.outcome).toContain('agent.bogus: unknown key');
    expect(b.errors).toEqual(['remote: document ' + seen.crc + ' ' + seen.outcome]);
    // Another boot's poll: the CRC on flash says it was settled.
    const x = b.job();
    await b.read(x);
    await b.read(x);
    expect(b.errors).toHaveLength(1);
    expect(b.loads).toEqual({ 'remote-apply': 1, check: 1 });
    expect(b.applied).toEqual([]);
  });

  it('refuses a document that would turn the last-known-good rule off, or outgrow the next read', async () => {
    const b = board();
    b.m.doc = () => '{"agent": {"lkgRevertMs": 0}}';
    await b.read(b.job());
    expect(readSeen(b.files)!.outcome).toBe('refused: agent.lkgRevertMs: 0 (off) cannot come from the service: the trial that reverts a bad document needs it');
    b.m.doc = () => '{"agent": {"maxResponseBytes": 1024}, "health": {"intervalMs": 60000}}';
    await b.read(b.job());
    expect(readSeen(b.files)!.outcome).toMatch(/^refused: agent\.maxResponseBytes: must hold this document/);
    expect(b.applied).toEqual([]);
  });

  it('says what is not JSON, or not an object, as unreadable, once', async () => {
    const b = board();
    b.m.doc = () => 'oops';
    await b.read(b.job());
    expect(readSeen(b.files)).toMatchObject({ crc: docCrc('oops'), outcome: 'unreadable: not JSON' });
    b.m.doc = () => '[1, 2]';
    await b.read(b.job());
    expect(readSeen(b.files)).toMatchObject({ outcome: 'unreadable: not a JSON object' });
    expect(b.errors).toHaveLength(2);
  });

  it('a device the service refuses is unreadable, said once; a read that fails is tried again after the backoff', async () => {
    const b = board();
    b.m.doc = () => ({ kind: 'reject', reason: 'HTTP 404 Not Found: device not found', status: 404, bytesSent: 80 });
    const x = b.job();
    await b.read(x);
    await b.read(x);
    expect(readSeen(b.files)).toMatchObject({ crc: null, outcome: 'unreadable: HTTP 404 Not Found: device not found' });
    expect(b.errors).toEqual(['remote: device 40 not read: HTTP 404 Not Found: device not found']);
    b.m.doc = () => ({ kind: 'retry', reason: 'connect: refused', bytesSent: 0 });
    x.due = false;
    expect((await b.read(x)).kind).toBe('retry');
    expect(x.due).toBe(true);
  });

  it('when the checker has no room beside the agent: the document is kept and the board restarts into a boot that checks it', async () => {
    const b = board();
    const doc = docOf(b.running(), (d) => ((d.agent as Record<string, unknown>).backoffBaseMs = 3000));
    b.m.doc = () => doc;
    b.m.refuse = 'cold code check: not enough free heap now (40000 B free, about 58821 B needed)';
    await b.read(b.job());
    expect(b.restarts).toEqual(['restart: to check a configuration from the service']);
    expect(text(b.files.contents('remote.json'))).toBe(canonical(doc));
    expect(b.files.contents('remote.wait')).toBeDefined();
    expect(readSeen(b.files)).toMatchObject({ outcome: 'pending check at next boot' });
    expect(b.applied).toEqual([]);
    // The boot without the agent: the checker has its room there. The change
    // comes back to be saved once the module is let go, the document kept until then.
    b.m.refuse = undefined;
    const next = applyRemote(b.rt, b.load) as AgentConfig;
    expect(next.agent.backoffBaseMs).toBe(3000);
    expect(b.applied).toEqual([]);
    expect(readSeen(b.files)).toMatchObject({ outcome: 'applied' });
    expect(text(b.files.contents('config.new'))).toBe('1');
    expect(b.files.contents('remote.json')).toBeDefined();
    // A power cut before the save: the next such boot does it again.
    expect((applyRemote(b.rt, b.load) as AgentConfig).agent.backoffBaseMs).toBe(3000);
    expect(b.rt.apply(next)).toBeUndefined();
    b.files.remove('remote.json');
    // Saved: settled, nothing more.
    b.files.write('remote.json', new TextEncoder().encode(canonical(doc)));
    expect(applyRemote(b.rt, b.load)).toBeUndefined();
    expect(b.files.contents('remote.json')).toBeUndefined();
    // Once settled, the next read of the same document does nothing.
    await b.read(b.job());
    expect(b.applied).toHaveLength(1);
  });

  it('a kept document the checker cannot check even without the agent is unreadable, and goes', () => {
    const b = board();
    b.files.write('remote.json', new TextEncoder().encode('{"agent":{"backoffBaseMs":3000}}'));
    b.m.refuse = 'cold code check: corrupt on flash (CRC); flash the board again with ./flash.sh';
    expect(applyRemote(b.rt, b.load)).toBeUndefined();
    expect(readSeen(b.files)!.outcome).toBe('unreadable: ' + b.m.refuse);
    expect(b.files.contents('remote.json')).toBeUndefined();
    expect(b.restarts).toEqual([]);
  });
});

describe('what the reports say', () => {
  it('the configuration\'s source: console or service by its CRC, flash.sh for one nobody noted, defaults for none', () => {
    const files = createMemoryFileStore();
    expect(configOrigin(files)).toEqual({ crc: '', source: 'defaults' });
    files.write('config.json', new TextEncoder().encode('{"a":1}'));
    const crc = configOrigin(files).crc;
    expect(configOrigin(files).source).toBe('flash.sh');
    noteSource(files, crc, 'console');
    expect(configOrigin(files)).toEqual({ crc, source: 'console' });
    // Only the last few are kept, newest first.
    for (let i = 0; i < 8; i++) noteSource(files, 'f' + i, 'service');
    expect(configOrigin(files).source).toBe('flash.sh');
  });

  it('an applied document whose configuration is no longer in force, with no trial, was reverted', () => {
    const files = createMemoryFileStore();
    const c = remoteConfig();
    noteSource(files, 'aaaa', 'console');
    noteSource(files, 'bbbb', 'service');
    files.write('remote.seen', new TextEncoder().encode(JSON.stringify({ id: 40, crc: '1234', outcome: 'applied', ignored: ['wifi.ssid'], at: 1000, cfg: 'bbbb', min: 30 })));
    // Running it (on trial or proven): applied.
    expect(remoteShown(files, c, 'bbbb', 61000)).toEqual({ id: 40, crc: '1234', outcome: 'applied', ignored: ['wifi.ssid'], atS: 60 });
    // Back on the one before it, the trial over: reverted.
    expect(remoteShown(files, c, 'aaaa', undefined)!.outcome).toBe('reverted after 30 min without a delivery');
    // A later save at the console replaced it: not a revert.
    noteSource(files, 'cccc', 'console');
    expect(remoteShown(files, c, 'cccc', undefined)!.outcome).toBe('applied');
    // Another device's document says nothing of this one; no device, no line.
    c.remote.id = 41;
    expect(remoteShown(files, c, 'cccc', undefined)).toEqual({ id: 41, crc: null, outcome: 'unreadable: not read yet', ignored: [], atS: null });
    c.remote.id = 0;
    expect(remoteShown(files, c, 'cccc', undefined)).toBeUndefined();
  });
});
