// Every console command as a person types it, wrong input included, on a
// booted runtime over in-memory flash; test() and provision() go over real
// HTTP to a local service on 127.0.0.1.
import { CODEC } from '../../src/config/codec';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createConfigStore } from '../../src/config/store';
import type { AgentConfig } from '../../src/config/types';
import { testConfig } from '../fakes/config';
import { Board, DEAD_URL, provisioned, sharedService, text, until } from '../runtime/harness';
import type { Booted } from '../runtime/harness';
import { fresh, said, wholeFlash } from './helpers';

const service = sharedService();

const API_KEY = testConfig().service.apiKey;
const WIFI_PASSWORD = testConfig().wifi.password;

/** A config with sensors and Wi-Fi but no key and no device: what provision() starts from. */
function unprovisioned(url: string): AgentConfig {
  const cfg = testConfig(url);
  cfg.service.apiKey = '';
  cfg.devices = [];
  return cfg;
}

describe('help()', () => {
  it('lists every command within 80 columns', () => {
    const { b } = fresh();
    const help = said(b, () => b.cmd.help!());
    const names = ['help()', 'status()', 'config()', 'set(key, value)', 'unset(key)', 'save()', 'discard()', 'importWifi()', 'sensors()', 'test()', 'provision(email', 'resume()', 'maintenance()', 'reboot()'];
    for (const name of names) expect(help.filter((l) => l.startsWith(name))).toHaveLength(1);
    for (const l of help) expect(l.length).toBeLessThanOrEqual(80);
    // Every command it names is installed, and nothing else.
    expect(Object.keys(b.p.commands).sort()).toEqual(['config', 'discard', 'help', 'importWifi', 'maintenance', 'provision', 'reboot', 'resume', 'save', 'sensors', 'i2cScan', 'set', 'status', 'test', 'unset'].sort());
    b.rt.stop();
  });

  it("help('keys') lists every setting with its rule and default within 80 columns", () => {
    const { b } = fresh();
    const keys = said(b, () => b.cmd.help!('keys'));
    for (const l of keys) expect(l.length).toBeLessThanOrEqual(80);
    expect(keys).toContain('wifi.ssid               Wi-Fi network name; importWifi() takes WIFI_SSID');
    expect(keys).toContain('    must be a whole number from 1000 to 60000; default 15000');
    for (const key of ['board', 'wifi.password', 'service.url', 'service.apiKey', 'agent.lkgRevertMs', 'sensor.<name>.kind', 'sensor.<name>.filters', 'device.<name>.sensors']) {
      expect(keys.some((l) => l.startsWith(key + ' '))).toBe(true);
    }
    b.rt.stop();
  });
});

describe('help() with another topic', () => {
  it('prints the command list for any topic but keys', () => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.help!('wifi'))).toEqual(said(b, () => b.cmd.help!()));
    expect(said(b, () => b.cmd.help!())).toHaveLength(21);
    b.rt.stop();
  });
});

describe('status()', () => {
  it('shows mode, outbox and safe mode within 80 columns and never a secret', async () => {
    const { b } = fresh();
    await b.run(20000);
    const lines = said(b, () => b.cmd.status!());
    expect(lines[0]).toBe('agent     0.1.0, running, boot 1, up 20 s');
    expect(lines.some((l) => /^service {3}unreachable: connect: closed before connect; next try in \d+ s$/.test(l))).toBe(true);
    expect(lines.some((l) => /^outbox {4}[1-9]\d* queued \(\d+ B\), dropped 0, rejected 0$/.test(l))).toBe(true);
    expect(lines).toContain('sampler   9 runs, 0 sensor errors, 0 filtered out');
    expect(lines).toContain('heap      40000 of 184312 B used, peak 40000 B');
    expect(lines).toContain('safe mode no');
    const all = lines.join('\n');
    expect(all).not.toContain(API_KEY);
    expect(all).not.toContain(API_KEY.slice(0, 8));
    expect(all).not.toContain(WIFI_PASSWORD);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    b.rt.stop();
  });

  it('in console-only mode says why, with no agent lines', () => {
    const b = new Board().boot();
    expect(said(b, () => b.cmd.status!())).toEqual([
      'agent     0.1.0, console-only, boot 1, up 0 s',
      'why       not configured: set wifi.ssid, service.url, service.apiKey,',
      '  device.<name>',
      'outbox    nothing on flash; opens with the agent',
      'heap      40000 of 184312 B used, peak 40000 B',
      'safe mode no',
    ]);
  });

  it('in console-only mode tells what the outbox holds on flash from its files alone (the outbox opens with the agent)', () => {
    const board = new Board();
    board.files.mkdir('q');
    board.files.write('q/seg-00000003', new Uint8Array(120));
    board.files.write('q/seg-00000004', new Uint8Array(30));
    board.files.write('q/cursor.tmp', new Uint8Array(9));
    const b = board.boot();
    expect(said(b, () => b.cmd.status!())).toContain('outbox    up to 150 B on flash (2 segments); opens with the agent');
    expect(b.rt.queue()).toBeUndefined();
  });

  it('in safe mode says YES with the reason', () => {
    const cfg = testConfig(DEAD_URL);
    cfg.agent.safeModeBoots = 2;
    const board = new Board();
    board.save(cfg);
    board.boot().rt.stop();
    board.boot().rt.stop();
    const b = board.boot();
    const lines = said(b, () => b.cmd.status!());
    expect(lines[0]).toBe('agent     0.1.0, safe, boot 3, up 0 s');
    const i = lines.findIndex((l) => l.startsWith('safe mode '));
    expect(lines.slice(i).join(' ').replace(/ {2,}/g, ' ')).toBe('safe mode YES: 2 reboots in a row before the agent was marked healthy; last state: running');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
  });

  it.each([
    [90000, '90 s'],
    [150000, '3 min'],
    [3600000, '60 min'],
    [7200000, '2 h 0 min'],
    [11100000, '3 h 5 min'],
  ])('shows an uptime of %i ms as %j', async (ms, shown) => {
    const b = new Board().boot();
    await b.run(ms);
    expect(said(b, () => b.cmd.status!())[0]).toBe('agent     0.1.0, console-only, boot 1, up ' + shown);
  });

  // Regression: minutes once rounded up to 60 without carrying into the hours.
  it('never shows 60 minutes past an hour', async () => {
    const b = new Board().boot();
    await b.run(10770000);
    expect(said(b, () => b.cmd.status!())[0]).toBe('agent     0.1.0, console-only, boot 1, up 3 h 0 min');
  });

  it('repeats the last console error', () => {
    const { b } = fresh();
    b.cmd.set!('agent.watchdog', 'yes');
    expect(said(b, () => b.cmd.status!())).toContain('console   last error: agent.watchdog: must be true or false');
    b.rt.stop();
  });
});

describe('config()', () => {
  it('lists every setting with the secrets masked', () => {
    const { b } = fresh();
    const lines = said(b, () => b.cmd.config!());
    expect(lines.slice(0, 5)).toEqual(['board = pico-w', 'wifi.ssid = field-net', 'wifi.password = (set)', 'service.url = http://127.0.0.1:9', 'service.apiKey = k3y0…(33)']);
    expect(lines).toContain('sensor.door.pull = up');
    expect(lines).toContain('device.tj.sensors = temp,light,door');
    expect(lines).toContain('health.intervalMs = 900000');
    // remote.id, remote.pin (a PIN: masked), remote.pollMs.
    expect(lines).toContain('remote.pin = (unset)');
    expect(lines).toHaveLength(62);
    expect(lines.join('\n')).not.toContain(API_KEY);
    expect(lines.join('\n')).not.toContain(WIFI_PASSWORD);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    b.rt.stop();
  });

  it('shows an unset secret as (unset) and points at unsaved changes', () => {
    const b = new Board().boot();
    b.cmd.set!('wifi.ssid', 'field-net');
    const lines = said(b, () => b.cmd.config!());
    expect(lines).toContain('wifi.password = (unset)');
    expect(lines).toContain("wifi.ssid = ''");
    expect(lines[lines.length - 1]).toBe('(unsaved changes: type save() to apply them, discard() to drop them)');
  });
});

describe('set() and unset()', () => {
  it.each([
    ['wifi.sid', 'x', 'wifi.sid: unknown key (see help())'],
    ['sensor.temp.colour', 'red', 'sensor.temp.colour: unknown key (see help())'],
    ['agent.requestTimeoutMs', 'soon', 'agent.requestTimeoutMs: must be a whole number from 1000 to 60000'],
    ['agent.requestTimeoutMs', 999, 'agent.requestTimeoutMs: must be a whole number from 1000 to 60000'],
    ['agent.requestTimeoutMs', 1500.5, 'agent.requestTimeoutMs: must be a whole number from 1000 to 60000'],
    ['agent.lkgRevertMs', 1000, 'agent.lkgRevertMs: 0 (off) or a whole number from 60000 to 86400000'],
    ['agent.watchdog', 'yes', 'agent.watchdog: must be true or false'],
    ['board', 'pico3', 'board: must be one of pico-w, pico2-w'],
    ['wifi.password', 'short', 'wifi.password: 8-63 characters, or empty for an open network'],
    ['service.apiKey', 'has spaces in it', 'service.apiKey: 8-128 characters of A-Z a-z 0-9 _ -, or empty when unset'],
    ['sensor.door.pin', 23, 'sensor.door.pin: pin 23: GP23 belongs to the Wi-Fi radio (WL_ON) and must never be used'],
    ['sensor.light.pin', 5, 'sensor.light.pin: pin 5: analog sensors need an ADC pin (26, 27, 28)'],
    ['sensor.new.pin', 5, "sensor.new: no such sensor; create it with set('sensor.new.kind', ...)"],
    ['device.x', 'str', "device.x: give all fields at once, e.g. {id: 1, pin: 1234, format: 'Value', sensors: 'temp'}"],
  ])('set(%j, %j) refuses with one line and changes nothing', (key, value, message) => {
    const { board, b } = fresh();
    const flash = wholeFlash(board);
    const before = JSON.stringify(b.rt.pending());
    expect(said(b, () => b.cmd.set!(key, value))).toEqual([message]);
    expect(b.p.errors[b.p.errors.length - 1]).toBe(message);
    expect(JSON.stringify(b.rt.pending())).toBe(before);
    expect(b.rt.dirty()).toBe(false);
    expect(wholeFlash(board)).toBe(flash);
    b.rt.stop();
  });

  it('a refused secret is not echoed', () => {
    const { b } = fresh();
    const lines = said(b, () => b.cmd.set!('wifi.password', 'x'.repeat(64)));
    expect(lines).toEqual(['wifi.password: 8-63 characters, or empty for an open network']);
    b.rt.stop();
  });

  it('set() with a non-string key says how to call it', () => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.set!(42, 1))).toEqual(["set: the key must be a string, e.g. set('wifi.ssid', 'net')"]);
    expect(said(b, () => b.cmd.set!())).toEqual(["set: the key must be a string, e.g. set('wifi.ssid', 'net')"]);
    b.rt.stop();
  });

  it('set() turns typed text into numbers and booleans', () => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.set!('agent.backoffBaseMs', '3000'))).toEqual(['agent.backoffBaseMs set; save() to apply']);
    b.cmd.set!('agent.radioOffBetweenUploads', 'true');
    expect(b.rt.pending().agent.backoffBaseMs).toBe(3000);
    expect(b.rt.pending().agent.radioOffBetweenUploads).toBe(true);
    // The running config is untouched until save().
    expect(b.rt.config().agent.backoffBaseMs).toBe(2000);
    b.rt.stop();
  });

  it('set() then save() restarts the agent on the new config and persists it', () => {
    const { board, b } = fresh();
    const first = b.rt.agent();
    expect(said(b, () => b.cmd.set!('sensor.temp.intervalMs', '30000'))).toEqual(['sensor.temp.intervalMs set; save() to apply']);
    expect(b.rt.config().sensors[0]!.intervalMs).toBe(10000);
    expect(said(b, () => b.cmd.save!())).toEqual(['saved; agent running']);
    expect(b.rt.agent()).toBeDefined();
    expect(b.rt.agent()).not.toBe(first);
    expect(b.rt.config().sensors[0]!.intervalMs).toBe(30000);
    expect(b.rt.dirty()).toBe(false);
    const reloaded = createConfigStore({ codec: () => CODEC, checker: 'test', files: board.files }).load();
    expect(reloaded.errors).toEqual([]);
    expect(reloaded.config).toEqual(b.rt.config());
    expect(JSON.parse(text(board.files.contents('config.json'))).sensors[0]).toEqual({ name: 'temp', kind: 'temperature', intervalMs: 30000, oversample: 1 });
    expect(said(b, () => b.cmd.save!())).toEqual(['nothing to save']);
    b.rt.stop();
    // A reboot runs on what was saved.
    const again = board.boot();
    expect(again.rt.config().sensors[0]!.intervalMs).toBe(30000);
    again.rt.stop();
  });

  it('from nothing to running with set() and save() alone', async () => {
    const board = new Board();
    const b = board.boot();
    const cfg = await provisioned(service.svc.url, testConfig());
    const dev = cfg.devices[0]!;
    for (const [k, v] of [
      ['wifi.ssid', 'field-net'],
      ['wifi.password', 'secret-pass'],
      ['service.url', service.svc.url],
      ['service.apiKey', cfg.service.apiKey],
      ['sensor.temp.kind', 'temperature'],
    ] as const) {
      expect(said(b, () => b.cmd.set!(k, v))).toEqual([k + ' set; save() to apply']);
    }
    b.cmd.set!('device.tv', { id: dev.deviceId, pin: dev.devicePin, format: 'Value', sensors: 'temp' });
    expect(said(b, () => b.cmd.save!())).toEqual(['saved; agent running']);
    const before = service.writes.length;
    await b.run(1000);
    b.rt.stop();
    expect(service.writes.slice(before).map((w) => w.deviceId)).toEqual([dev.deviceId]);
  });

  it('save() refused by flash says so in one line and changes nothing running', () => {
    const { board, b } = fresh();
    const agent = b.rt.agent();
    const flash = wholeFlash(board);
    b.cmd.set!('agent.backoffBaseMs', 3000);
    board.files.tearNext(0);
    expect(said(b, () => b.cmd.save!())).toEqual(['save: config.json: not saved (torn write)']);
    expect(b.rt.agent()).toBe(agent);
    expect(b.rt.config().agent.backoffBaseMs).toBe(2000);
    // The change is still pending: a second save() once flash works stores it.
    expect(b.rt.dirty()).toBe(true);
    expect(wholeFlash(board)).toBe(flash);
    expect(said(b, () => b.cmd.save!())).toEqual(['saved; agent running']);
    expect(createConfigStore({ codec: () => CODEC, checker: 'test', files: board.files }).load().config.agent.backoffBaseMs).toBe(3000);
    b.rt.stop();
  });

  it('save() that leaves the config incomplete stops the agent and says what is missing', () => {
    const { b } = fresh();
    b.cmd.unset!('service.url');
    expect(said(b, () => b.cmd.save!())).toEqual(['saved; agent console-only: not configured: set service.url']);
    expect(b.rt.agent()).toBeUndefined();
  });

  it('unset() of a sensor a device carries is refused and changes nothing', () => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.unset!('sensor.temp'))).toEqual(['sensor.temp: device tv, tj still carries it; change device.tv.sensors first']);
    expect(b.rt.dirty()).toBe(false);
    expect(b.rt.pending().sensors.map((s) => s.name)).toEqual(['temp', 'light', 'door']);
    b.rt.stop();
  });

  it.each([
    ['sensor.nope', 'sensor.nope: no such sensor'],
    ['sensor.temp.kind', 'sensor.temp.kind: every sensor has a kind; unset sensor.temp to remove it'],
    ['wifi.sid', 'wifi.sid: unknown key (see help())'],
  ])('unset(%j) refuses with one line', (key, message) => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.unset!(key))).toEqual([message]);
    expect(b.rt.dirty()).toBe(false);
    b.rt.stop();
  });

  it('unset() with a non-string key says how to call it', () => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.unset!(7))).toEqual(["unset: the key must be a string, e.g. unset('sensor.temp')"]);
    b.rt.stop();
  });

  it('unset() puts a setting back to its default, and removes a sensor no device carries', () => {
    const cfg = testConfig(DEAD_URL);
    cfg.agent.backoffBaseMs = 5000;
    const { b } = fresh(cfg);
    expect(said(b, () => b.cmd.unset!('agent.backoffBaseMs'))).toEqual(['agent.backoffBaseMs unset; save() to apply']);
    expect(b.rt.pending().agent.backoffBaseMs).toBe(2000);
    b.cmd.set!('device.tx.sensors', 'light');
    b.cmd.set!('device.tj.sensors', 'temp,light');
    expect(said(b, () => b.cmd.unset!('sensor.door'))).toEqual(['sensor.door unset; save() to apply']);
    expect(b.rt.pending().sensors.map((s) => s.name)).toEqual(['temp', 'light']);
    b.rt.stop();
  });
});

describe('discard()', () => {
  it('drops pending changes and keeps the running config', () => {
    const { board, b } = fresh();
    b.cmd.set!('agent.backoffBaseMs', 5000);
    expect(b.rt.dirty()).toBe(true);
    expect(said(b, () => b.cmd.discard!())).toEqual(['unsaved changes dropped']);
    expect(b.rt.dirty()).toBe(false);
    expect(b.rt.pending().agent.backoffBaseMs).toBe(2000);
    expect(b.rt.config().agent.backoffBaseMs).toBe(2000);
    expect(createConfigStore({ codec: () => CODEC, checker: 'test', files: board.files }).load().config.agent.backoffBaseMs).toBe(2000);
    b.rt.stop();
  });

  // Regression: discard() used to call rt.apply(rt.config()), saving the
  // running config (the defaults after an invalid file) over config.json and
  // restarting the agent.
  it('leaves an invalid config.json on flash as it was', () => {
    const board = new Board();
    const saved = '{"wifi":{"ssid":"field-net"},"sensors":[{"name":"t","kind":"digital","pin":23}]}';
    board.files.write('config.json', new TextEncoder().encode(saved));
    const b = board.boot();
    b.cmd.discard!();
    expect(text(board.files.contents('config.json'))).toBe(saved);
    expect(b.rt.why()).toBe('saved configuration invalid (see the errors above); fix with set() and save()');
  });

  // Regression, same cause: a restart also opened a last-known-good window on
  // a config that was already running.
  it('does not restart a running agent', () => {
    const { b } = fresh();
    const agent = b.rt.agent();
    b.cmd.discard!();
    expect(b.rt.agent()).toBe(agent);
    b.rt.stop();
  });
});

// Kaluma's own Wi-Fi keys in its storage: read only here, when a person asks
// (every read overruns the C heap on the board), into the pending changes.
describe('importWifi()', () => {
  function withKeys(keys: Record<string, string>, cfg?: AgentConfig): { board: Board; b: Booted } {
    const board = new Board();
    for (const k in keys) board.kv.set(k, keys[k]!);
    if (cfg) board.save(cfg);
    return { board, b: board.boot() };
  }

  it('puts WIFI_SSID and WIFI_PASSWORD into the pending changes, the password masked, nothing saved yet', () => {
    const { board, b } = withKeys({ WIFI_SSID: 'shed-net', WIFI_PASSWORD: 'shed-password' });
    const flash = wholeFlash(board);
    const lines = said(b, () => b.cmd.importWifi!());
    expect(lines).toEqual(['wifi.ssid = shed-net, wifi.password = (set); save() to apply']);
    expect(lines.join('\n')).not.toContain('shed-password');
    expect(b.rt.pending().wifi).toEqual({ ssid: 'shed-net', password: 'shed-password' });
    expect(b.rt.dirty()).toBe(true);
    expect(b.rt.config().wifi).toEqual({ ssid: '', password: '' });
    expect(wholeFlash(board)).toBe(flash);
    expect(b.p.kvReads).toEqual([{ key: 'WIFI_SSID', console: true }, { key: 'WIFI_PASSWORD', console: true }]);
  });

  it('an SSID without a password is an open network', () => {
    const { b } = withKeys({ WIFI_SSID: 'cafe' }, testConfig(DEAD_URL));
    expect(said(b, () => b.cmd.importWifi!())).toEqual(['wifi.ssid = cafe, wifi.password = (unset); save() to apply']);
    expect(b.rt.pending().wifi).toEqual({ ssid: 'cafe', password: '' });
    b.rt.stop();
  });

  it('with no keys set: one line, nothing changed, and the password is not even read', () => {
    const { b } = withKeys({ WIFI_PASSWORD: 'orphan-password' }, testConfig(DEAD_URL));
    const before = JSON.stringify(b.rt.pending());
    expect(said(b, () => b.cmd.importWifi!())).toEqual(['importWifi: no WIFI_SSID in storage; nothing changed']);
    expect(JSON.stringify(b.rt.pending())).toBe(before);
    expect(b.rt.dirty()).toBe(false);
    expect(b.p.kvReads.map((r) => r.key)).toEqual(['WIFI_SSID']);
    b.rt.stop();
  });

  it.each([
    [{ WIFI_SSID: 'shed-net', WIFI_PASSWORD: 'short' }, 'wifi.password: 8-63 characters, or empty for an open network'],
    [{ WIFI_SSID: 'n'.repeat(33), WIFI_PASSWORD: 'shed-password' }, 'wifi.ssid: at most 32 bytes (UTF-8)'],
  ])('refuses %j naming the field and the rule, changes nothing and never echoes the value', (keys, rule) => {
    const { b } = withKeys(keys, testConfig(DEAD_URL));
    const before = JSON.stringify(b.rt.pending());
    const lines = said(b, () => b.cmd.importWifi!());
    expect(lines).toEqual(['importWifi: ' + rule + '; nothing changed']);
    expect(lines.join('\n')).not.toContain(keys.WIFI_PASSWORD);
    expect(JSON.stringify(b.rt.pending())).toBe(before);
    expect(b.rt.dirty()).toBe(false);
    b.rt.stop();
  });
});

describe('sensors()', () => {
  it('prints one live reading per sensor', () => {
    const { b } = fresh();
    const lines = said(b, () => b.cmd.sensors!());
    expect(lines.map((l) => l.split(' = ')[0])).toEqual(['temp', 'light', 'door']);
    expect(lines[0]).toMatch(/^temp = 2\d(\.\d+)? C$/);
    expect(lines.slice(1)).toEqual(['light = 0.066 V', 'door = 1']);
    b.rt.stop();
  });

  // Regression: the raw double was printed, e.g. 'temp = 21.000000000000032 C'.
  it('prints readings without floating-point noise', () => {
    const { b } = fresh();
    for (const l of said(b, () => b.cmd.sensors!())) expect(l).toMatch(/^\w+ = -?\d+(\.\d{1,3})?( \w+)?$/);
    b.rt.stop();
  });

  it('sensors() and test() explain why they cannot run in console-only mode', () => {
    const b = new Board().boot();
    expect(said(b, () => b.cmd.sensors!())).toEqual(['sensors: the agent is not running (not configured: set wifi.ssid, service.url, service.apiKey, device.<name>)']);
    expect(said(b, () => b.cmd.test!())).toEqual(['test: the agent is not running (not configured: set wifi.ssid, service.url, service.apiKey, device.<name>)']);
  });
});

describe('test()', () => {
  it.each([
    [0, 'Value', /^test: writing 21 to device \d+ \(Value\)$/, /^test: read back 21 - matches$/],
    [1, 'JSON', /^test: writing \{"temp":21,"test":true\} to device \d+ \(JSON\)$/, /^test: read back \{"temp":21,"test":true\} - matches$/],
    [2, 'XML', /^test: writing <test><light>0\.07<\/light><\/test> to device \d+ \(XML\)$/, /^test: read back .*0\.07.* - matches$/],
  ])('writes one reading to a first device of format %#(%s) and reads it back', async (first, _format, writing, readBack) => {
    const cfg = await provisioned(service.svc.url, testConfig());
    cfg.devices.unshift(cfg.devices.splice(first, 1)[0]!);
    const { b } = fresh(cfg);
    const before = service.writes.length;
    b.cmd.test!();
    await until(() => b.out().some((l) => l.startsWith('test: read back') || /^test: (write|read back) (retry|reject)/.test(l)), 'the read-back');
    const lines = b.out().filter((l) => l.startsWith('test:'));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(writing);
    expect(lines[1]).toMatch(/^test: write ok \(HTTP 200 OK, text \d+ bytes: /);
    expect(lines[2]).toMatch(readBack);
    expect(service.writes.slice(before).some((w) => w.deviceId === cfg.devices[0]!.deviceId)).toBe(true);
    b.rt.stop();
  });

  // Regression: a read-back once 'matched' when it merely contained the written text.
  it('says DIFFERS when the service reads back another value that contains the written one', async () => {
    const srv = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/plain');
      res.end('210');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const { b } = fresh(testConfig('http://127.0.0.1:' + (srv.address() as AddressInfo).port));
      b.cmd.test!();
      await until(() => b.out().some((l) => l.startsWith('test: read back')), 'the read-back');
      expect(b.out().filter((l) => l.startsWith('test:'))).toEqual([
        'test: writing 21 to device 1 (Value)',
        'test: write ok (HTTP 200 OK, text 3 bytes: 210)',
        'test: read back 210 - DIFFERS from what was written',
      ]);
      b.rt.stop();
    } finally {
      await new Promise((r) => srv.close(r));
    }
  });

  it('says so when the service refuses the key, without showing it', async () => {
    const cfg = await provisioned(service.svc.url, testConfig());
    cfg.service.apiKey = 'wrong-key-0000000000';
    const { b } = fresh(cfg);
    b.cmd.test!();
    await until(() => b.out().some((l) => l.startsWith('test: write ')), 'the write');
    expect(b.p.errors).toContain('test: write reject: HTTP 401 Unauthorized: text 15 bytes: invalid API key');
    expect(b.out().join('\n')).not.toContain('wrong-key-0000000000');
    b.rt.stop();
  });
});

describe('provision()', () => {
  it('creates the key and a device at the service; the password is never printed or stored', async () => {
    const board = new Board();
    board.save(unprovisioned(service.svc.url));
    const b = board.boot();
    expect(b.rt.mode()).toBe('console-only');
    b.cmd.provision!('field@example.com', 'hunter2-secret', 'greenhouse', 'JSON');
    await until(() => b.out().some((l) => l.startsWith('device.greenhouse set') || b.p.errors.length > 0), 'provisioning');
    expect(b.p.errors).toEqual([]);
    const pending = b.rt.pending();
    const dev = pending.devices[0]!;
    expect(dev).toMatchObject({ name: 'greenhouse', format: 'JSON', sensors: ['temp', 'light', 'door'] });
    expect(dev.deviceId).toBeGreaterThan(0);
    expect(pending.service.apiKey).toMatch(/^[0-9a-f]{32}$/);
    const provLines = b.out().filter((l) => l.startsWith('provision:'));
    expect(provLines).toEqual([
      'provision: creating JSON device greenhouse for field@example.com',
      'provision: device ' + dev.deviceId + ' (JSON, sensors temp,light,door), API key ' + pending.service.apiKey.slice(0, 4) + '…(32)',
    ]);
    // set() made both once provision() was done: on the board they are two cold modules, never on the heap together.
    expect(b.out().filter((l) => / set; /.test(l))).toEqual(['service.apiKey set; save() to apply', 'device.greenhouse set; save() to apply']);
    expect(b.out().join('\n')).not.toContain(pending.service.apiKey);
    expect(said(b, () => b.cmd.save!())).toEqual(['saved; agent running']);
    const before = service.writes.length;
    await b.run(15000);
    b.rt.stop();
    expect(service.writes.slice(before).some((w) => w.deviceId === dev.deviceId && w.format === 'JSON')).toBe(true);
    // Not even the first characters of the account password, anywhere.
    expect(b.out().join('\n')).not.toContain('hunt');
    const flash = wholeFlash(board);
    expect(flash).toContain(pending.service.apiKey);
    expect(flash).not.toContain('hunter2-secret');
    expect(flash).not.toContain('hunt');
  });

  it('a Value device carries the first sensor; a second device reuses the key', async () => {
    const board = new Board();
    board.save(unprovisioned(service.svc.url));
    const b = board.boot();
    b.cmd.provision!('two@example.com', 'pw-two-devices', 'first', 'Value');
    await until(() => b.out().some((l) => l.startsWith('device.first set')), 'the first device');
    const key = b.rt.pending().service.apiKey;
    b.cmd.provision!('two@example.com', 'pw-two-devices', 'second', 'XML');
    await until(() => b.out().some((l) => l.startsWith('device.second set')), 'the second device');
    const pending = b.rt.pending();
    expect(pending.service.apiKey).toBe(key);
    expect(pending.devices.map((d) => [d.name, d.format, d.sensors])).toEqual([
      ['first', 'Value', ['temp']],
      ['second', 'XML', ['temp', 'light', 'door']],
    ]);
    expect(b.p.errors).toEqual([]);
  });

  it("the name 'health' makes the JSON device of the health reports and sets health.id and health.pin", async () => {
    const board = new Board();
    board.save(unprovisioned(service.svc.url));
    const b = board.boot();
    b.cmd.provision!('hl@example.com', 'pw-health-01', 'health', 'Value');
    expect(b.p.errors).toEqual(['provision: the health device is a JSON device']);
    b.cmd.provision!('hl@example.com', 'pw-health-01', 'health', 'JSON');
    await until(() => b.out().some((l) => l.startsWith('health.pin set')), 'the health device');
    const pending = b.rt.pending();
    expect(pending.health.id).toBeGreaterThan(0);
    expect(pending.devices).toEqual([]);
    expect(b.out().filter((l) => / set; /.test(l))).toEqual(['service.apiKey set; save() to apply', 'health.id set; save() to apply', 'health.pin set; save() to apply']);
    expect(b.out()).toContain('provision: device ' + pending.health.id + ' (JSON, health reports), API key ' + pending.service.apiKey.slice(0, 4) + '…(32)');
  });

  it("'output.<name>' makes the control device of an existing output and sets its sourceId and sourcePin", async () => {
    const board = new Board();
    board.save(unprovisioned(service.svc.url));
    const b = board.boot();
    b.cmd.provision!('out@example.com', 'pw-output-01', 'output.pump', 'Value');
    expect(b.p.errors).toEqual(["provision: no output pump; create it first, e.g. set('output.pump', {kind: 'digital', pin: 16, sourceId: 1, sourcePin: 0})"]);
    b.cmd.set!('output.pump', { kind: 'digital', pin: 16, sourceId: 1, sourcePin: 0 });
    b.cmd.provision!('out@example.com', 'pw-output-01', 'output.pump', 'JSON');
    expect(b.p.errors[1]).toBe('provision: output pump reads a Value device (its field is empty)');
    b.cmd.provision!('out@example.com', 'pw-output-01', 'output.pump', 'Value');
    await until(() => b.out().some((l) => l.startsWith('output.pump.sourcePin set')), 'the control device');
    const pending = b.rt.pending();
    const o = pending.outputs[0]!;
    expect(o.sourceId).toBeGreaterThan(1);
    expect(o.sourcePin).toBeGreaterThan(0);
    expect(pending.devices).toEqual([]);
    expect(b.out()).toContain('provision: device ' + o.sourceId + ' (Value, the source of output pump), API key ' + pending.service.apiKey.slice(0, 4) + '…(32)');
    expect(b.p.errors).toHaveLength(2);
  });

  it('reports a wrong account password in one line without a trace of it', async () => {
    const board = new Board();
    board.save(unprovisioned(service.svc.url));
    const b = board.boot();
    b.cmd.provision!('same@example.com', 'first-password', 'one', 'Value');
    await until(() => b.out().some((l) => l.startsWith('device.one set')), 'the first device');
    b.cmd.set!('service.apiKey', '');
    b.cmd.provision!('same@example.com', 'wrong-password', 'two', 'Value');
    await until(() => b.p.errors.length > 0, 'the refusal');
    expect(b.p.errors).toEqual(['provision: generate API key: HTTP 401 Unauthorized: text 19 bytes: invalid credentials; no device created']);
    expect(b.out().join('\n')).not.toContain('wron');
    expect(wholeFlash(board)).not.toContain('wrong-password');
    expect(b.rt.pending().devices.map((d) => d.name)).toEqual(['one']);
  });

  it('reports a link that does not come up', async () => {
    const board = new Board();
    board.save(unprovisioned(service.svc.url));
    const b = board.boot();
    b.p.wifi.setAp(false);
    b.cmd.provision!('field@example.com', 'pw-no-link', 'd', 'JSON');
    await until(() => b.p.errors.length > 0, 'the refusal');
    expect(b.p.errors).toEqual(['provision: Wi-Fi link not up (SSID not visible)']);
  });

  it('reports a service nobody answers for, without a trace of the password', async () => {
    const board = new Board();
    board.save(unprovisioned(DEAD_URL));
    const b = board.boot();
    b.cmd.provision!('field@example.com', 'pw-dead-port-77', 'd', 'JSON');
    await until(() => b.p.errors.length > 0, 'the refusal');
    expect(b.p.errors).toHaveLength(1);
    expect(b.p.errors[0]).toMatch(/^provision: generate API key: connect: /);
    expect(b.out().join('\n')).not.toContain('pw-d');
    expect(wholeFlash(board)).not.toContain('pw-dead-port-77');
    expect(b.rt.dirty()).toBe(false);
  });

  it('reports an unset service URL', async () => {
    const b = new Board().boot();
    b.cmd.set!('sensor.t.kind', 'temperature');
    b.cmd.provision!('a@b.c', 'pw-no-url', 'd', 'JSON');
    await until(() => b.p.errors.length > 0, 'the refusal');
    expect(b.p.errors).toEqual(['provision: service.url: must start with http:// (e.g. http://192.168.1.10:8080)']);
  });

  // Regression: an odd 2xx reply to generateapikey was logged with the
  // password masked by maskSecret(), which kept its first four characters.
  it('shows no part of the password when the service answers oddly', async () => {
    const srv = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end('{"error":"account locked"}');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const board = new Board();
      board.save(unprovisioned('http://127.0.0.1:' + (srv.address() as AddressInfo).port));
      const b = board.boot();
      b.cmd.provision!('field@example.com', 'hunter2-secret', 'gh', 'JSON');
      await until(() => b.p.errors.some((l) => l.startsWith('provision: ')), 'the refusal');
      expect(b.out().join('\n')).not.toContain('hunt');
    } finally {
      await new Promise((r) => srv.close(r));
    }
  });

  it.each([
    [['nobody', 'pw', 'd', 'JSON'], 'provision: email must be an address like me@example.com'],
    [['@example.com', 'pw', 'd', 'JSON'], 'provision: email must be an address like me@example.com'],
    [[42, 'pw', 'd', 'JSON'], 'provision: email must be an address like me@example.com'],
    [['a@b.c', '', 'd', 'JSON'], 'provision: password must be a non-empty string'],
    [['a@b.c', 1234, 'd', 'JSON'], 'provision: password must be a non-empty string'],
    [['a@b.c', 'pw', '9lives', 'JSON'], 'provision: deviceName must be 1-16 letters, digits or _, not starting with a digit'],
    [['a@b.c', 'pw', 'a'.repeat(17), 'JSON'], 'provision: deviceName must be 1-16 letters, digits or _, not starting with a digit'],
    [['a@b.c', 'pw', 'd'], 'provision: format must be Value, JSON or XML'],
    [['a@b.c', 'pw', 'd', 'json'], 'provision: format must be Value, JSON or XML'],
    [['a@b.c', 'pw', 'd', 'CSV'], 'provision: format must be Value, JSON or XML'],
  ])('provision(%j) refuses with one line before any request', (args, message) => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.provision!(...args))).toEqual([message]);
    expect(b.rt.dirty()).toBe(false);
    b.rt.stop();
  });

  it('provision() without any sensor asks for one first', () => {
    const b = new Board().boot();
    expect(said(b, () => b.cmd.provision!('a@b.c', 'pw', 'd', 'JSON'))).toEqual(["provision: add a sensor first, e.g. set('sensor.temp.kind', 'temperature')"]);
  });
});

describe('resume(), maintenance() and reboot()', () => {
  it('resume() outside safe mode reports the mode', () => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.resume!())).toEqual(['agent running']);
    b.rt.stop();
    const c = new Board().boot();
    // Longer than 80 columns: continued on an indented line.
    expect(said(c, () => c.cmd.resume!())).toEqual(['agent console-only: not configured: set wifi.ssid, service.url, service.apiKey,', '  device.<name>']);
  });

  it('resume() in safe mode starts the agent', () => {
    const cfg = testConfig(DEAD_URL);
    cfg.agent.safeModeBoots = 2;
    const board = new Board();
    board.save(cfg);
    board.boot().rt.stop();
    board.boot().rt.stop();
    const b = board.boot();
    expect(b.rt.mode()).toBe('safe');
    expect(said(b, () => b.cmd.resume!())).toEqual(['agent running']);
    expect(b.rt.agent()).toBeDefined();
    expect(said(b, () => b.cmd.status!())).toContain('safe mode no');
    b.rt.stop();
  });

  it('maintenance() marks the next boot and reboots', () => {
    const { board, b } = fresh();
    expect(said(b, () => b.cmd.maintenance!())).toEqual(['rebooting into maintenance: the agent and the watchdog stay off until the next', '  reboot']);
    expect(b.p.reboots).toBe(1);
    expect(board.files.contents('maintenance')).toEqual(new Uint8Array([49]));
  });

  it('reboot() stops the agent and reboots the board', () => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.reboot!())).toEqual(['rebooting']);
    expect(b.p.reboots).toBe(1);
    expect(b.rt.agent()).toBeUndefined();
  });
});
