import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfigStore } from '../../src/config/store';
import { testConfig } from '../fakes/config';
import { Board, localService, provisioned, until } from '../runtime/harness';
import type { Booted } from '../runtime/harness';

let service: Awaited<ReturnType<typeof localService>>;
beforeAll(async () => {
  service = await localService();
});
afterAll(async () => {
  await service.close();
});

const API_KEY = testConfig().service.apiKey;
const WIFI_PASSWORD = testConfig().wifi.password;

function fresh(): { board: Board; b: Booted } {
  const board = new Board();
  board.save(testConfig('http://127.0.0.1:9'));
  return { board, b: board.boot() };
}

/** Lines printed by one command. */
function said(b: Booted, f: () => unknown): string[] {
  const from = b.out().length;
  f();
  return b.out().slice(from);
}

describe('console commands', () => {
  it('help() and help("keys") fit 80 columns and name every command', () => {
    const { b } = fresh();
    const help = said(b, () => b.cmd.help!());
    for (const name of ['help()', 'status()', 'config()', 'set(key, value)', 'unset(key)', 'save()', 'discard()', 'sensors()', 'test()', 'provision(email', 'resume()', 'maintenance()', 'reboot()']) {
      expect(help.some((l) => l.startsWith(name))).toBe(true);
    }
    const keys = said(b, () => b.cmd.help!('keys'));
    expect(keys.length).toBeGreaterThan(60);
    expect(keys.some((l) => l.startsWith('wifi.ssid'))).toBe(true);
    for (const l of [...help, ...keys]) expect(l.length).toBeLessThanOrEqual(80);
  });

  it('status() shows mode, outbox and safe mode, fits 80 columns and never shows a secret', async () => {
    const { b } = fresh();
    await b.run(20000);
    const lines = said(b, () => b.cmd.status!());
    expect(lines[0]).toMatch(/^agent {5}0\.1\.0, running, boot 1, up 20 s$/);
    expect(lines.some((l) => /^outbox {4}\d+ queued \(\d+ B\), dropped 0, rejected 0$/.test(l))).toBe(true);
    expect(lines).toContain('safe mode no');
    expect(lines.some((l) => l.startsWith('heap      ') && l.includes('of 184312 B used'))).toBe(true);
    const text = lines.join('\n');
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(WIFI_PASSWORD);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    b.rt.stop();
  });

  it('config() lists every setting with the secrets masked', () => {
    const { b } = fresh();
    const lines = said(b, () => b.cmd.config!());
    expect(lines).toContain('wifi.ssid = field-net');
    expect(lines.some((l) => l.startsWith('service.apiKey = k3y0…(33)'))).toBe(true);
    expect(lines.join('\n')).not.toContain(API_KEY);
    expect(lines.join('\n')).not.toContain(WIFI_PASSWORD);
  });

  it.each([
    ['wifi.sid', 'x', 'wifi.sid: unknown key (see help())'],
    ['agent.requestTimeoutMs', 'soon', 'agent.requestTimeoutMs: must be a whole number from 1000 to 60000'],
    ['agent.requestTimeoutMs', 999, 'agent.requestTimeoutMs: must be a whole number from 1000 to 60000'],
    ['sensor.door.pin', 23, 'sensor.door.pin: pin 23: GP23 belongs to the Wi-Fi radio (WL_ON) and must never be used'],
    ['sensor.light.pin', 5, 'sensor.light.pin: pin 5: analog sensors need an ADC pin (26, 27, 28)'],
  ])('set(%s, %s) refuses with one line and changes nothing', (key, value, message) => {
    const { b } = fresh();
    const before = JSON.stringify(b.rt.editor().pending());
    const lines = said(b, () => b.cmd.set!(key, value));
    expect(lines).toEqual([message]);
    expect(JSON.stringify(b.rt.editor().pending())).toBe(before);
    expect(b.rt.editor().dirty()).toBe(false);
  });

  it('set() then save() persists the change and restarts the agent on it', () => {
    const { board, b } = fresh();
    const first = b.rt.agent();
    expect(said(b, () => b.cmd.set!('sensor.temp.intervalMs', '30000'))).toEqual(['sensor.temp.intervalMs set; save() to apply']);
    expect(b.rt.config().sensors[0]!.intervalMs).toBe(10000);
    expect(said(b, () => b.cmd.save!())).toEqual(['saved; agent running']);
    expect(b.rt.agent()).not.toBe(first);
    expect(b.rt.config().sensors[0]!.intervalMs).toBe(30000);
    const reloaded = createConfigStore({ files: board.files, kv: board.kv }).load();
    expect(reloaded.config).toEqual(b.rt.config());
    expect(said(b, () => b.cmd.save!())).toEqual(['nothing to save']);
    b.rt.stop();
  });

  it('unset() of a sensor a device carries is refused; discard() drops pending changes', () => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.unset!('sensor.temp'))).toEqual(['sensor.temp: device tv, tj still carries it; change device.tv.sensors first']);
    b.cmd.set!('agent.backoffBaseMs', 5000);
    expect(b.rt.editor().dirty()).toBe(true);
    b.cmd.discard!();
    expect(b.rt.editor().dirty()).toBe(false);
    expect(b.rt.config().agent.backoffBaseMs).toBe(2000);
    b.rt.stop();
  });

  it('set() with a non-string key says how to call it', () => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.set!(42, 1))).toEqual(["set: the key must be a string, e.g. set('wifi.ssid', 'net')"]);
  });

  it('sensors() prints one live reading per sensor', () => {
    const { b } = fresh();
    const lines = said(b, () => b.cmd.sensors!());
    expect(lines.map((l) => l.split(' = ')[0])).toEqual(['temp', 'light', 'door']);
    expect(lines[0]).toMatch(/^temp = -?\d+(\.\d+)? C$/);
    b.rt.stop();
  });

  it('sensors() and test() explain why they cannot run in console-only mode', () => {
    const b = new Board().boot();
    expect(said(b, () => b.cmd.sensors!())[0]).toBe('sensors: the agent is not running (not configured: set wifi.ssid, service.url, service.apiKey, device.<name>)');
    expect(said(b, () => b.cmd.test!())[0]).toMatch(/^test: the agent is not running/);
  });

  it('test() writes one reading to the first device and reads it back', async () => {
    const board = new Board();
    board.save(await provisioned(service.svc.url, testConfig()));
    const b = board.boot();
    b.cmd.test!();
    await until(() => b.out().some((l) => l.startsWith('test: read back')), 'the read-back');
    const lines = b.out().filter((l) => l.startsWith('test:'));
    expect(lines[0]).toMatch(/^test: writing \d+(\.\d+)? to device \d+ \(Value\)$/);
    expect(lines[1]).toMatch(/^test: write ok \(HTTP 200, /);
    expect(lines[2]).toMatch(/^test: read back \d+(\.\d+)? - matches$/);
    b.rt.stop();
  });

  it('provision() creates the key and a device at the service; the password is never printed or stored', async () => {
    const board = new Board();
    const cfg = testConfig(service.svc.url);
    cfg.service.apiKey = '';
    cfg.devices = [];
    board.save(cfg);
    const b = board.boot();
    expect(b.rt.mode()).toBe('console-only');
    b.cmd.provision!('field@example.com', 'hunter2-secret', 'greenhouse', 'JSON');
    await until(() => b.out().some((l) => l.startsWith('provision: type save()')), 'provisioning');
    const dev = b.rt.editor().pending().devices[0]!;
    expect(dev).toMatchObject({ name: 'greenhouse', format: 'JSON', sensors: ['temp', 'light', 'door'] });
    expect(dev.deviceId).toBeGreaterThan(0);
    expect(b.rt.editor().pending().service.apiKey).toMatch(/^[0-9a-f]{32}$/);
    expect(said(b, () => b.cmd.save!())).toEqual(['saved; agent running']);
    const before = service.writes.length;
    await b.run(15000);
    b.rt.stop();
    expect(service.writes.slice(before).some((w) => w.deviceId === dev.deviceId && w.format === 'JSON')).toBe(true);
    // Not even the first characters of the account password are printed.
    expect(b.out().join('\n')).not.toContain('hunt');
    expect(b.out()).toContain('provision: creating JSON device greenhouse for field@example.com');
    for (const path of board.files.paths()) {
      expect(new TextDecoder().decode(board.files.contents(path))).not.toContain('hunter2-secret');
    }
  });

  it.each([
    [['nobody', 'pw', 'd', 'JSON'], 'provision: email must be an address like me@example.com'],
    [['a@b.c', '', 'd', 'JSON'], 'provision: password must be a non-empty string'],
    [['a@b.c', 'pw', '9lives', 'JSON'], 'provision: deviceName must be 1-16 letters, digits or _, not starting with a digit'],
    [['a@b.c', 'pw', 'd', 'CSV'], 'provision: format must be Value, JSON or XML'],
  ])('provision(%j) refuses with one line', (args, message) => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.provision!(...args))).toEqual([message]);
    b.rt.stop();
  });

  it('reboot() stops the agent and reboots the board', () => {
    const { b } = fresh();
    expect(said(b, () => b.cmd.reboot!())).toEqual(['rebooting']);
    expect(b.p.reboots).toBe(1);
    expect(b.rt.agent()).toBeUndefined();
  });
});
